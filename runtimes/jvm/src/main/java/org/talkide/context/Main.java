package org.talkide.context;

import java.io.IOException;
import java.io.PrintStream;
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
 * Usage errors exit with status 64.
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
    byte[] input = System.in.readAllBytes();
    String output;
    try {
      ClaudeMdRenderer.Rendered rendered = ClaudeMdRenderer.render(decodeUtf8(input));
      output = file.isEmpty() ? rendered.single() : rendered.splitFile(file);
    } catch (StateFault fault) {
      PrintStream err = new PrintStream(System.err, true, StandardCharsets.UTF_8);
      err.print(
          "{\"code\":"
              + Json.quote(fault.code())
              + ",\"path\":"
              + Json.quote(fault.path())
              + ",\"message\":"
              + Json.quote("The render state was refused: " + fault.getMessage() + ".")
              + "}\n");
      System.exit(REFUSED);
      return;
    }
    System.out.write(output.getBytes(StandardCharsets.UTF_8));
    System.out.flush();
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
