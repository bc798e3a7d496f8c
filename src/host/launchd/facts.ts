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
  catchUp: {
    once: 'launchd runs a fire missed while the Mac slept once on wake; the wrapper runs it only inside your working hours with minRun left',
    skip: 'launchd runs a fire missed while the Mac slept once on wake, and the wrapper logs it skip-late and does not run the agent',
  },
  startJob: {
    argv: ['launchctl', 'kickstart', 'gui/<uid>/<label>'],
    says: 'through launchd, the installed job unchanged',
    // kickstart returns at once; `launchctl print` shows the job's state and its last exit.
    follow: { argv: ['launchctl', 'print', 'gui/<uid>/<label>'], ended: /^\s*state = not running$/m, exitCode: /^\s*last exit code = (-?\d+)/m },
  },
  bounds: { wrapper: 'entry', says: "the plist's HardResourceLimits and SoftResourceLimits (NumberOfProcesses, ResidentSetSize), which launchd sets as rlimits: macOS counts processes per user and does not enforce a resident-size limit" },
} as const satisfies SchedulerFacts<'launchd'>;
