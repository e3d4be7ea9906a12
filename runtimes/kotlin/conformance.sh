#!/bin/sh
# `pnpm run conformance:jvm`: builds the Kotlin renderer, runs the project's conformance runner
# over the claude-md and claude-md-split suites with it as the command (session mode; the
# runner prints "N passed, N failed" and writes this run's result file for the report page),
# the split suite once more a process per case (the protocol's other mode), then the generated
# MaraContextRendererTestCases.kt under JUnit 5 on Debian's console launcher. Exits non-zero
# when anything fails or is missing.
#
# TALKIDE_CONFORMANCE_RESULTS: the folder of result files (default: conformance-results/ at
# the repository root); this run writes kotlin/<time>.json there.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/jars.sh"
require_kotlin_toolchain
sh "$here/build.sh"

jar="$here/build/libs/talkide-context-kotlin.jar"
# The runner offers the jar a session (runner protocol, session mode): one JVM per argument
# list and worker answers every case. The class-data archive made by build.sh and the client
# compiler halve each JVM's start-up time.
java_flags="-Xlog:disable $SHORT_JVM_FLAGS -Xshare:auto -XX:SharedArchiveFile=$here/build/app.jsa"

# The runner runs from its TypeScript sources, which needs Node 22.6 or later: the Node that
# started us (the vitest test passes it, pnpm sets npm_node_execpath), else the one on PATH.
node=${TALKIDE_NODE:-${npm_node_execpath:-node}}
results=${TALKIDE_CONFORMANCE_RESULTS:-$root/conformance-results}
result="$results/kotlin/$(date -u +%Y%m%dT%H%M%SZ)-$$.json"
kotlin_version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$KOTLIN_HOME/package.json" | head -n 1)
java_version=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.version = //p')
commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo "")
# A build from uncommitted sources says so: its result is not the commit's.
if [ -n "$commit" ] && [ -n "$(git -C "$root" status --porcelain -- runtimes/kotlin packages/context-spec 2>/dev/null)" ]; then
  commit="$commit+dirty"
fi
cd "$root"
echo "conformance:jvm: the conformance runner over claude-md and claude-md-split (session mode)"
"$node" --conditions=@talkide/source packages/context-spec/src/bin/conformance.ts \
  --suite claude-md --suite claude-md-split --timeout 60000 \
  --result "$result" --implementation kotlin \
  --implementation-version "MaraContextRenderer.kt, Kotlin $kotlin_version, Java $java_version" --commit "$commit" \
  -- java $java_flags -jar "$jar" render --file '{output}'
echo "conformance:jvm: the conformance runner over claude-md-split (per case)"
"$node" --conditions=@talkide/source packages/context-spec/src/bin/conformance.ts \
  --suite claude-md-split --timeout 60000 --per-case \
  -- java $java_flags -jar "$jar" render --file '{output}'

echo "conformance:jvm: JUnit 5 (the generated MaraContextRendererTestCases.kt)"
java $SHORT_JVM_FLAGS -jar "$JUNIT_CONSOLE" \
  --disable-banner --disable-ansi-colors --details=summary --fail-if-no-tests \
  --class-path "$here/build/test-classes:$jar:$KOTLIN_STDLIB:$JACKSON_CLASSPATH" \
  --select-class org.talkide.context.KotlinRendererCasesTest
echo "conformance:jvm: result file $result"
