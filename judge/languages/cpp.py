from judge.languages.base import SANITIZER_ENV, Executor

EXECUTOR = Executor(
    name="cpp",
    source_name="main.cpp",
    compile=("/usr/bin/g++", "-O2", "-std=gnu++17", "-pipe", "-o", "main", "main.cpp"),
    run=("./main",),
    self_test='#include <iostream>\nint main(){int a,b;std::cin>>a>>b;'
              'std::cout<<"hello "<<a+b<<"\\n";}\n',
    diagnose=("/usr/bin/g++", "-g", "-O0", "-fno-omit-frame-pointer",
              "-fsanitize=address,undefined", "-std=gnu++17", "-pipe", "-o", "main",
              "main.cpp"),
    diagnose_env=SANITIZER_ENV,
    tools=("/usr/bin/g++",),
)
