#!/bin/sh
# Builds the Kotlin CLAUDE.md renderer with the pinned kotlin-compiler from the npm registry,
# the machine's JDK and Debian's jars (no Maven Central): build/libs/talkide-context-kotlin.jar
# (the runner-protocol command, `java -jar`) and, in build/test-classes, the generated
# MaraContextRendererTestCases.kt of @talkide/context-spec with this runtime's test of it.
# Usage: sh runtimes/kotlin/build.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/jars.sh"
require_kotlin_toolchain

build="$here/build"
rm -rf "$build"
mkdir -p "$build/classes/unicode" "$build/test-classes" "$build/libs"

# -Werror: a warning of the compiler fails the build, as javac's -Xlint:all -Werror did.
"$KOTLINC" $JVM_TOOL_FLAGS -jvm-target 17 -Werror -d "$build/classes" \
  -cp "$JACKSON_CLASSPATH" "$here/src/main/kotlin"
# The spec's Unicode 13.0.0 data file travels inside the jar.
cp "$root/packages/context-spec/unicode/unassigned-13.0.0.txt" "$build/classes/unicode/"

# Class-Path entries are absolute paths (Debian's jars and the Kotlin standard library of the
# pinned compiler), as Debian's own jars do it.
printf 'Main-Class: org.talkide.context.Main\nClass-Path: %s\n' \
  "$(echo "$KOTLIN_STDLIB:$JACKSON_CLASSPATH" | tr ':' ' ')" > "$build/manifest.txt"
jar --create --file "$build/libs/talkide-context-kotlin.jar" --manifest "$build/manifest.txt" \
  -C "$build/classes" .

# A class-data archive of one real run: later JVMs map the classes instead of loading them.
printf '%s' '{"project":{"id":1,"name":"P"},"team":[{"id":"a","createdAt":"2026-01-01T00:00:00Z","salutation":"Eva","teamBriefing":"x"}],"activeMemberId":"a"}' \
  | java $SHORT_JVM_FLAGS -XX:ArchiveClassesAtExit="$build/app.jsa" -Xshare:auto -jar "$build/libs/talkide-context-kotlin.jar" render \
    > /dev/null 2> "$build/cds.log" || { cat "$build/cds.log" >&2; exit 1; }

# The generated class is compiled from where @talkide/context-spec keeps it, unchanged.
"$KOTLINC" $JVM_TOOL_FLAGS -jvm-target 17 -Werror -d "$build/test-classes" \
  -cp "$build/libs/talkide-context-kotlin.jar:$JACKSON_CLASSPATH:$JUNIT_API_CLASSPATH" \
  "$root/packages/context-spec/kotlin/MaraContextRendererTestCases.kt" "$here/src/test/kotlin"
echo "built $build/libs/talkide-context-kotlin.jar"
