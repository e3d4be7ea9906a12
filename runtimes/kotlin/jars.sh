# Sourced by build.sh and conformance.sh: where the JDK, the pinned Kotlin compiler (npm's
# kotlin-compiler, a root devDependency) and Debian's jars are, and a clear failure when
# something is missing.
KOTLIN_HOME=${KOTLIN_HOME:-$root/node_modules/kotlin-compiler}
KOTLINC="$KOTLIN_HOME/bin/kotlinc"
KOTLIN_STDLIB="$KOTLIN_HOME/lib/kotlin-stdlib.jar"
JAVA_SHARE=${JAVA_SHARE:-/usr/share/java}
JACKSON_CLASSPATH="$JAVA_SHARE/jackson-databind.jar:$JAVA_SHARE/jackson-core.jar:$JAVA_SHARE/jackson-annotations.jar"
JUNIT_API_CLASSPATH="$JAVA_SHARE/junit-jupiter-api.jar:$JAVA_SHARE/opentest4j.jar:$JAVA_SHARE/junit-platform-commons.jar:$JAVA_SHARE/apiguardian-api.jar"
JUNIT_CONSOLE="$JAVA_SHARE/junit-platform-console-standalone.jar"
# Every JVM here (kotlinc, the renderer, JUnit) lives seconds on a small machine: the client
# compiler only and the serial collector, instead of C2 and parallel GC threads that never pay
# back in that time. kotlinc takes them as -J options: $JVM_TOOL_FLAGS.
SHORT_JVM_FLAGS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
JVM_TOOL_FLAGS=$(for flag in $SHORT_JVM_FLAGS; do printf -- " -J%s" "$flag"; done)

require_kotlin_toolchain() {
  missing=""
  for tool in java jar; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
  done
  for file in "$KOTLINC" "$KOTLIN_STDLIB" $(echo "$JACKSON_CLASSPATH:$JUNIT_API_CLASSPATH:$JUNIT_CONSOLE" | tr ':' ' '); do
    [ -f "$file" ] || missing="$missing $file"
  done
  if [ -n "$missing" ]; then
    echo "conformance:jvm needs a JDK 17, the kotlin-compiler package and Debian's Jackson and JUnit 5 jars; missing:$missing" >&2
    echo "install them with: pnpm install (kotlin-compiler) and sh scripts/debian-packages.sh (openjdk-17-jdk-headless libjackson2-databind-java junit5)" >&2
    exit 1
  fi
  version=$(java -version 2>&1 | sed -n 's/^[a-z]* version "\([0-9]*\).*/\1/p' | head -n 1)
  if [ -z "$version" ] || [ "$version" -lt 17 ]; then
    echo "conformance:jvm needs Java 17 or later; found: $(java -version 2>&1 | head -n 1)" >&2
    exit 1
  fi
}
