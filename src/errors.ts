/** An error the user caused: printed as one sentence (or one line per problem), no stack. */
export class UserError extends Error {
  constructor(
    readonly lines: string[],
    readonly exitCode = 1,
  ) {
    super(lines.join('\n'));
  }
}
