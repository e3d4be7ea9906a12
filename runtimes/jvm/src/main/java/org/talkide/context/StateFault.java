package org.talkide.context;

/**
 * A refused render state: one error code and the path of the fault in the input
 * (spec/claude-md.md, "Errors"). The message never repeats the offending value, which may be
 * personal data.
 */
public final class StateFault extends Exception {
  private static final long serialVersionUID = 1L;

  private final String code;
  private final String path;

  public StateFault(String code, String path) {
    super(code + " at " + (path.isEmpty() ? "the document" : path), null, false, false);
    this.code = code;
    this.path = path;
  }

  public String code() {
    return code;
  }

  public String path() {
    return path;
  }
}
