from judge.languages.base import Executor

# Go's build cache and module cache must be writable: point them at the private /tmp.
EXECUTOR = Executor(
    name="go",
    source_name="main.go",
    compile=("/usr/bin/go", "build", "-o", "main", "main.go"),
    run=("./main",),
    env=(("GOCACHE", "/tmp/gocache"), ("GOPATH", "/tmp/gopath"), ("GO111MODULE", "off"),
         ("CGO_ENABLED", "0"), ("GOMAXPROCS", "1")),
    time_factor=1.5,
    memory_extra_mb=32,
    pids=64,
    compile_pids=256,
    error_line=r"main\.go:(?P<line>\d+):\d+: ",
    self_test='package main\nimport "fmt"\nfunc main(){var a,b int;fmt.Scan(&a,&b);'
              'fmt.Printf("hello %d\\n",a+b)}\n',
    tools=("/usr/bin/go",),
)
