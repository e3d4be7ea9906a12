#!/bin/sh
# `pnpm run conformance:jvm`: builds the Java renderer, runs the project's conformance runner
# over the claude-md and claude-md-split suites with it as the command (the runner prints
# "N passed, 0 failed"), then runs the JUnit 5 cases (MaraContextRendererTestCases) on the
# JUnit console launcher from Debian. Exits non-zero when anything fails or is missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/jars.sh"
require_jvm_toolchain
sh "$here/build.sh"

jar="$here/build/libs/talkide-context-jvm.jar"
# One JVM per case and output: a class-data archive made by build.sh and the client compiler
# halve the start-up time, which is most of a run.
java_flags="-Xlog:disable -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto -XX:SharedArchiveFile=$here/build/app.jsa"

# The runner runs from its TypeScript sources, which needs Node 22.6 or later: the Node that
# started us (the vitest test passes it, pnpm sets npm_node_execpath), else the one on PATH.
node=${TALKIDE_NODE:-${npm_node_execpath:-node}}
echo "conformance:jvm: the conformance runner over claude-md and claude-md-split"
cd "$root"
"$node" --conditions=@talkide/source packages/context-spec/src/bin/conformance.ts \
  --suite claude-md --suite claude-md-split --timeout 60000 \
  -- java $java_flags -jar "$jar" render --file '{output}'

echo "conformance:jvm: JUnit 5 (MaraContextRendererTestCases)"
java -Dtalkide.contextSpec.dir="$root/packages/context-spec" -jar "$JUNIT_CONSOLE" \
  --disable-banner --disable-ansi-colors --details=summary --fail-if-no-tests \
  --class-path "$here/build/test-classes:$jar:$JACKSON_CLASSPATH" \
  --select-class org.talkide.context.JvmRendererCasesTest
