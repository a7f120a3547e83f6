from judge.languages.base import Executor

EXECUTOR = Executor(
    name="cpp",
    source_name="main.cpp",
    compile=("/usr/bin/g++", "-O2", "-std=gnu++17", "-pipe", "-o", "main", "main.cpp"),
    run=("./main",),
    self_test='#include <iostream>\nint main(){int a,b;std::cin>>a>>b;'
              'std::cout<<"hello "<<a+b<<"\\n";}\n',
    tools=("/usr/bin/g++",),
)
