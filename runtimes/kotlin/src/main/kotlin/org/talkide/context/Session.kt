package org.talkide.context

import java.io.BufferedInputStream
import java.io.BufferedOutputStream
import java.io.ByteArrayOutputStream
import java.io.EOFException
import java.io.FileDescriptor
import java.io.FileOutputStream
import java.io.IOException
import java.io.InputStream

/**
 * The session mode of the runner protocol (spec/runner-protocol.md#session-mode): one JVM
 * answers every case the runner sends, so the runner pays one JVM start per argument list
 * instead of one per case. The handshake line first, then per request `case <n>\n` and n
 * input bytes, one answer `answer <status> <m> <k>\n`, m stdout bytes and k stderr bytes; the
 * session ends when the runner closes standard input.
 */
internal object Session {
  /** Set by the runner when it offers a session; its value is the session mode's version. */
  private const val ENV = "TALKIDE_CONFORMANCE_SESSION"
  private val HANDSHAKE = "talkide-conformance session 1\n".toByteArray(Charsets.US_ASCII)
  private val REQUEST = Regex("case (0|[1-9][0-9]{0,9})")
  private const val CRASHED = 1

  /** What a per-case run would have ended with: exit status, stdout bytes, stderr bytes. */
  class Answer(val exitCode: Int, val stdout: ByteArray, val stderr: ByteArray)

  fun requested(): Boolean = System.getenv(ENV) == "1"

  /** Serves the session on the process's standard input and output until the input ends. */
  fun serve(answer: (ByteArray) -> Answer) {
    val input = BufferedInputStream(System.`in`)
    val out = BufferedOutputStream(FileOutputStream(FileDescriptor.out))
    out.write(HANDSHAKE)
    out.flush()
    while (true) {
      val header = readLine(input) ?: break
      val request =
        REQUEST.matchEntire(header) ?: throw IOException("session: expected \"case <byte count>\", got \"$header\"")
      val length = request.groupValues[1].toInt()
      val bytes = input.readNBytes(length)
      if (bytes.size != length) throw EOFException("session: standard input ended in the middle of a request")
      val result = answerOrCrash(answer, bytes)
      val line = "answer ${result.exitCode} ${result.stdout.size} ${result.stderr.size}\n"
      out.write(line.toByteArray(Charsets.US_ASCII))
      out.write(result.stdout)
      out.write(result.stderr)
      out.flush()
    }
  }

  /** A case that throws is answered as the crash it would have been per case. */
  private fun answerOrCrash(answer: (ByteArray) -> Answer, input: ByteArray): Answer =
    try {
      answer(input)
    } catch (crash: RuntimeException) {
      Answer(CRASHED, ByteArray(0), crash.stackTraceToString().toByteArray(Charsets.UTF_8))
    }

  /** One header line without its line feed, or null at the end of the input. */
  private fun readLine(input: InputStream): String? {
    val line = ByteArrayOutputStream()
    while (true) {
      val b = input.read()
      if (b == '\n'.code) break
      if (b < 0) {
        if (line.size() == 0) return null
        throw EOFException("session: standard input ended in the middle of a header")
      }
      line.write(b)
    }
    return line.toString(Charsets.ISO_8859_1)
  }
}
