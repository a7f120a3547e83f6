from judge.languages.base import Executor

# The JVM sizes itself from host RAM and CPUs unless told: pin heap, GC and processor count.
# A 32 MiB stack holds about a million frames of a small recursive method; a runaway
# recursion then ends in a StackOverflowError with its line. With 64 MiB the JVM's footprint
# reached 300-490 MB before the error (measured), past the run's memory limit: the candidate
# heard "uses too much memory", with no line.
_RUN = ("/usr/bin/java", "-Xmx{memory_mb}m", "-Xss32m", "-XX:+UseSerialGC",
        "-XX:ActiveProcessorCount=1", "-XX:MaxMetaspaceSize=64m", "-XX:ReservedCodeCacheSize=32m",
        "-Xshare:auto", "-cp", ".", "Main")
EXECUTOR = Executor(
    name="java",
    source_name="Main.java",
    compile=("/usr/bin/javac", "-J-Xmx512m", "-J-XX:+UseSerialGC", "-J-XX:ActiveProcessorCount=1",
             "-J-XX:TieredStopAtLevel=1", "-encoding", "UTF-8", "Main.java"),
    run=_RUN,
    # Growth is timed in the interpreter: with the JIT, the larger inputs run compiled code
    # and the smaller ones not, so on the real set a linear Kadane fitted 0.24 (constant) and
    # a segment tree 0.49; with -Xint 1.11 and 1.02 (and a HashSet 1.03 for 0.55), each its
    # known class. The verdicts keep the JIT.
    measure_run=(*_RUN[:-3], "-Xint", *_RUN[-3:]),
    time_factor=2.0,
    memory_extra_mb=160,
    pids=128,
    host_paths=("/etc/java-17-openjdk",),
    error_line=r"Main\.java:(?P<line>\d+): error",
    self_test='import java.util.*;\npublic class Main{public static void main(String[] a){'
              'Scanner s=new Scanner(System.in);int x=s.nextInt(),y=s.nextInt();'
              'System.out.println("hello "+(x+y));}}\n',
    tools=("/usr/bin/javac", "/usr/bin/java"),
)
