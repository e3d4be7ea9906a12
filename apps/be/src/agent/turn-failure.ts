/** The error a step of a turn throws to fail the turn with a stable code and our message. */
export class TurnFailure extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}
