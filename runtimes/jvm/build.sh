#!/bin/sh
# Builds the Java 17 CLAUDE.md renderer with the machine's JDK and Debian's jars (no Maven
# Central): build/libs/talkide-context-jvm.jar (runner-protocol command, `java -jar`) and the
# compiled JUnit 5 classes in build/test-classes. Usage: sh runtimes/jvm/build.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/jars.sh"
require_jvm_toolchain

build="$here/build"
rm -rf "$build"
mkdir -p "$build/classes/unicode" "$build/test-classes" "$build/libs"

find "$here/src/main/java" -name '*.java' > "$build/main-sources.txt"
javac $JDK_TOOL_FLAGS --release 17 -encoding UTF-8 -Xlint:all -Werror -d "$build/classes" \
  -cp "$JACKSON_CLASSPATH" @"$build/main-sources.txt"
# The spec's Unicode 13.0.0 data file travels inside the jar.
cp "$root/packages/context-spec/unicode/unassigned-13.0.0.txt" "$build/classes/unicode/"

# Class-Path entries are absolute paths to Debian's jars, as Debian's own jars do it.
printf 'Main-Class: org.talkide.context.Main\nClass-Path: %s\n' \
  "$(echo "$JACKSON_CLASSPATH" | tr ':' ' ')" > "$build/manifest.txt"
jar $JDK_TOOL_FLAGS --create --file "$build/libs/talkide-context-jvm.jar" --manifest "$build/manifest.txt" \
  -C "$build/classes" .

# A class-data archive of one real run: later JVMs map the classes instead of loading them.
printf '%s' '{"project":{"id":1,"name":"P"},"team":[{"id":"a","createdAt":"2026-01-01T00:00:00Z","salutation":"Eva","teamBriefing":"x"}],"activeMemberId":"a"}' \
  | java $SHORT_JVM_FLAGS -XX:ArchiveClassesAtExit="$build/app.jsa" -Xshare:auto -jar "$build/libs/talkide-context-jvm.jar" render \
    > /dev/null 2> "$build/cds.log" || { cat "$build/cds.log" >&2; exit 1; }

find "$here/src/test/java" -name '*.java' > "$build/test-sources.txt"
javac $JDK_TOOL_FLAGS --release 17 -encoding UTF-8 -Xlint:all -Xlint:-processing -Werror -d "$build/test-classes" \
  -cp "$build/libs/talkide-context-jvm.jar:$JACKSON_CLASSPATH:$JUNIT_API_CLASSPATH" \
  @"$build/test-sources.txt"
echo "built $build/libs/talkide-context-jvm.jar"
