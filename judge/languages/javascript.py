from judge.languages.base import Executor

EXECUTOR = Executor(
    name="javascript",
    source_name="main.js",
    compile=("/usr/bin/node", "--check", "main.js"),
    run=("/usr/bin/node", "--max-old-space-size={memory_mb}", "--stack-size=65500", "main.js"),
    env=(("NODE_OPTIONS", ""),),
    time_factor=2.0,
    memory_extra_mb=64,
    pids=64,
    error_line=r"main\.js:(?P<line>\d+)",
    error_message=r"^(?P<message>\w*Error: .*)$",
    self_test="const [a,b]=require('fs').readFileSync(0,'utf8').trim().split(/\\s+/).map(Number);\n"
              "console.log('hello '+(a+b));\n",
    tools=("/usr/bin/node",),
)
