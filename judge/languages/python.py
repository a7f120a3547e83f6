from judge.languages.base import Executor

# "Compile" byte-compiles without running anything, so a syntax error is a CE with its line.
EXECUTOR = Executor(
    name="python",
    source_name="main.py",
    compile=("/usr/bin/python3", "-c",
             "import py_compile,sys\n"
             "try:\n py_compile.compile('main.py', cfile='/tmp/main.pyc', doraise=True)\n"
             "except py_compile.PyCompileError as e:\n print(e.msg, file=sys.stderr); sys.exit(1)"),
    run=("/usr/bin/python3", "-B", "main.py"),
    env=(("PYTHONDONTWRITEBYTECODE", "1"), ("PYTHONIOENCODING", "utf-8")),
    time_factor=3.0,
    memory_extra_mb=16,
    error_line=r'line (?P<line>\d+)',
    error_message=r"^(?P<message>\w*Error: .*)$",
    self_test="a, b = map(int, input().split())\nprint('hello', a + b)\n",
    tools=("/usr/bin/python3",),
)
