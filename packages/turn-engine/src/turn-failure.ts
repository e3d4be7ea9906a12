/**
 * A turn that cannot go on, with the stable code and the message its clients get (the context
 * cannot be rendered, the workspace is not isolated, the stored work no longer validates).
 * Thrown by a stage; the host records it as the turn's failure.
 */
export class TurnFailure extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.name = "TurnFailure";
    this.code = code;
  }
}
