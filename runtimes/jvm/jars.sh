# Sourced by build.sh and conformance.sh: where the JDK's tools and Debian's jars are, and a
# clear failure when something is missing.
JAVA_SHARE=${JAVA_SHARE:-/usr/share/java}
JACKSON_CLASSPATH="$JAVA_SHARE/jackson-databind.jar:$JAVA_SHARE/jackson-core.jar:$JAVA_SHARE/jackson-annotations.jar"
JUNIT_API_CLASSPATH="$JAVA_SHARE/junit-jupiter-api.jar:$JAVA_SHARE/opentest4j.jar:$JAVA_SHARE/junit-platform-commons.jar:$JAVA_SHARE/apiguardian-api.jar"
JUNIT_CONSOLE="$JAVA_SHARE/junit-platform-console-standalone.jar"
# Every JVM here (javac, jar, the renderer, JUnit) lives a few seconds on a small machine: the
# client compiler only and the serial collector, instead of C2 and parallel GC threads that never
# pay back in that time (the build and the suites: about a third less CPU). javac and jar take
# them as -J options: $JDK_TOOL_FLAGS.
SHORT_JVM_FLAGS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
JDK_TOOL_FLAGS=$(for flag in $SHORT_JVM_FLAGS; do printf -- " -J%s" "$flag"; done)

require_jvm_toolchain() {
  missing=""
  for tool in java javac jar; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
  done
  for file in $(echo "$JACKSON_CLASSPATH:$JUNIT_API_CLASSPATH:$JUNIT_CONSOLE" | tr ':' ' '); do
    [ -f "$file" ] || missing="$missing $file"
  done
  if [ -n "$missing" ]; then
    echo "conformance:jvm needs a JDK 17 and Debian's Jackson and JUnit 5 jars; missing:$missing" >&2
    echo "install them with: sh scripts/debian-packages.sh (apt-get install openjdk-17-jdk-headless libjackson2-databind-java junit5)" >&2
    exit 1
  fi
  version=$(javac -version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p')
  if [ -z "$version" ] || [ "$version" -lt 17 ]; then
    echo "conformance:jvm needs javac 17 or later; found: $(javac -version 2>&1)" >&2
    exit 1
  fi
}
