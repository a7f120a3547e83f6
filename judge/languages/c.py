from judge.languages.base import SANITIZER_ENV, Executor

EXECUTOR = Executor(
    name="c",
    source_name="main.c",
    compile=("/usr/bin/gcc", "-O2", "-std=gnu17", "-pipe", "-o", "main", "main.c", "-lm"),
    run=("./main",),
    self_test='#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);'
              'printf("hello %d\\n",a+b);return 0;}\n',
    diagnose=("/usr/bin/gcc", "-g", "-O0", "-fno-omit-frame-pointer",
              "-fsanitize=address,undefined", "-std=gnu17", "-pipe", "-o", "main", "main.c",
              "-lm"),
    diagnose_env=SANITIZER_ENV,
    tools=("/usr/bin/gcc",),
)
