#!/bin/sh
# `pnpm run conformance:jvm`: builds the Java renderer, runs the project's conformance runner
# over the claude-md and claude-md-split suites with it as the command (the runner prints
# "N passed, 0 failed" per suite), then runs the JUnit 5 cases (MaraContextRendererTestCases) on the
# JUnit console launcher from Debian. Exits non-zero when anything fails or is missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/jars.sh"
require_jvm_toolchain
sh "$here/build.sh"

jar="$here/build/libs/talkide-context-jvm.jar"
# The runner offers the jar a session (runner protocol, session mode): one JVM per argument
# list and worker answers every case. A class-data archive made by build.sh and the client
# compiler halve each JVM's start-up time, which was most of a run when it was one per case.
java_flags="-Xlog:disable $SHORT_JVM_FLAGS -Xshare:auto -XX:SharedArchiveFile=$here/build/app.jsa"

# The runner runs from its TypeScript sources, which needs Node 22.6 or later: the Node that
# started us (the vitest test passes it, pnpm sets npm_node_execpath), else the one on PATH.
node=${TALKIDE_NODE:-${npm_node_execpath:-node}}
cd "$root"
# claude-md in a session; claude-md-split per case (`--per-case`, a JVM per case and output),
# so both modes of the protocol stay proved with this jar.
echo "conformance:jvm: the conformance runner over claude-md (session mode)"
"$node" --conditions=@talkide/source packages/context-spec/src/bin/conformance.ts \
  --suite claude-md --timeout 60000 \
  -- java $java_flags -jar "$jar" render --file '{output}'
echo "conformance:jvm: the conformance runner over claude-md-split (per case)"
"$node" --conditions=@talkide/source packages/context-spec/src/bin/conformance.ts \
  --suite claude-md-split --timeout 60000 --per-case \
  -- java $java_flags -jar "$jar" render --file '{output}'

echo "conformance:jvm: JUnit 5 (MaraContextRendererTestCases)"
java $SHORT_JVM_FLAGS -Dtalkide.contextSpec.dir="$root/packages/context-spec" -jar "$JUNIT_CONSOLE" \
  --disable-banner --disable-ansi-colors --details=summary --fail-if-no-tests \
  --class-path "$here/build/test-classes:$jar:$JACKSON_CLASSPATH" \
  --select-class org.talkide.context.JvmRendererCasesTest
