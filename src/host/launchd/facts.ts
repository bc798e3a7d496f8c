// launchd's facts (src/scheduler-facts.ts): no code, so every floor may read them.
import type { SchedulerFacts } from '../../scheduler-facts.ts';

export const facts = {
  id: 'launchd',
  tools: [{ name: 'launchctl' }],
  macOS: true,
  hostClock: true,
  // macOS keeps an app's state in ~/Library/Application Support
  // (https://developer.apple.com/library/archive/documentation/FileManagement/Conceptual/FileSystemProgrammingGuide/FileSystemOverview/FileSystemOverview.html).
  stateHome: 'Library/Application Support',
  entry: 'LaunchAgent',
  missedCause: 'you were logged out (a LaunchAgent runs only in your GUI session)',
  startJob: { argv: ['launchctl', 'kickstart', 'gui/<uid>/<label>'], says: 'through launchd, the installed job unchanged' },
} as const satisfies SchedulerFacts<'launchd'>;
