from judge.languages.base import Executor

# Goroutine stacks live on the heap and may grow to 1 GB, so a runaway recursion met the
# memory limit first and the candidate heard "uses too much memory", with no line. This file,
# built beside theirs, caps the stack at the run's stack limit (half its memory): the
# recursion ends in "fatal error: stack overflow" with its line. Its own names only (init
# functions may repeat in a package).
_STACK_CAP = '''package main

import (
	"runtime/debug"
	"syscall"
)

func init() {
	var limit syscall.Rlimit
	err := syscall.Getrlimit(syscall.RLIMIT_STACK, &limit)
	if err == nil && limit.Cur > 0 && limit.Cur < 1<<30 {
		debug.SetMaxStack(int(limit.Cur))
	}
}
'''

# Go's build cache and module cache must be writable: point them at the private /tmp.
EXECUTOR = Executor(
    name="go",
    source_name="main.go",
    compile=("/usr/bin/go", "build", "-o", "main", "main.go", "viva_stack.go"),
    support_files=(("viva_stack.go", _STACK_CAP),),
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
