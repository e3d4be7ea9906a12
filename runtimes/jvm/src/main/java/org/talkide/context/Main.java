package org.talkide.context;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The runner protocol (spec/runner-protocol.md) as a command:
 *
 * <pre>
 * java -jar talkide-context-jvm.jar render [--file &lt;file&gt;]
 * </pre>
 *
 * The render state comes on standard input. Without {@code --file}, or with an empty one, the
 * single CLAUDE.md is written to standard output; {@code --file CLAUDE.md} or {@code --file
 * .talkide/active-writer.md} writes that file of the split form. A refused state writes one
 * JSON line {@code {"code","path","message"}} to standard error and exits with status 2.
 * Usage errors exit with status 64. Offered a session by the runner (environment variable
 * TALKIDE_CONFORMANCE_SESSION=1), it answers every case the runner sends in this one JVM
 * (see {@link Session}).
 */
public final class Main {
  private static final int REFUSED = 2;
  private static final int USAGE = 64;

  private Main() {}

  public static void main(String[] args) throws IOException {
    if (args.length >= 1 && args[0].equals("bench")) {
      Bench.main(java.util.Arrays.copyOfRange(args, 1, args.length));
      return;
    }
    String file = parseFile(args);
    if (file == null) {
      System.err.println(
          "usage: java -jar talkide-context-jvm.jar render [--file CLAUDE.md|"
              + ClaudeMdRenderer.ACTIVE_WRITER_PATH
              + "]   (render state JSON on standard input)");
      System.exit(USAGE);
      return;
    }
    if (Session.requested()) {
      Session.serve(input -> render(input, file));
      return;
    }
    Session.Answer answer = render(System.in.readAllBytes(), file);
    System.out.write(answer.stdout());
    System.out.flush();
    System.err.write(answer.stderr());
    System.err.flush();
    if (answer.exitCode() != 0) System.exit(answer.exitCode());
  }

  /** One case: the file's bytes (status 0), or the refusal line for standard error (status 2). */
  private static Session.Answer render(byte[] input, String file) {
    try {
      ClaudeMdRenderer.Rendered rendered = ClaudeMdRenderer.render(decodeUtf8(input));
      String output = file.isEmpty() ? rendered.single() : rendered.splitFile(file);
      return new Session.Answer(0, output.getBytes(StandardCharsets.UTF_8), new byte[0]);
    } catch (StateFault fault) {
      String line =
          "{\"code\":"
              + Json.quote(fault.code())
              + ",\"path\":"
              + Json.quote(fault.path())
              + ",\"message\":"
              + Json.quote("The render state was refused: " + fault.getMessage() + ".")
              + "}\n";
      return new Session.Answer(REFUSED, new byte[0], line.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The value of --file ("" for the single file), or null for a usage error. */
  private static String parseFile(String[] args) {
    if (args.length == 1 && args[0].equals("render")) return "";
    if (args.length != 3 || !args[0].equals("render") || !args[1].equals("--file")) return null;
    String file = args[2];
    if (file.isEmpty() || file.equals("CLAUDE.md") || file.equals(ClaudeMdRenderer.ACTIVE_WRITER_PATH))
      return file;
    return null;
  }

  /** Strict UTF-8: bytes that are not UTF-8 are not JSON, so the state is refused. */
  private static String decodeUtf8(byte[] bytes) throws StateFault {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (CharacterCodingException notUtf8) {
      throw new StateFault("invalid_field", "");
    }
  }
}
