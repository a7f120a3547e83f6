import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCompileLog } from '../src/editor/compile-diagnostics';

test('gcc errors land on their line and column; notes are skipped', () => {
  const log = [
    'main.c: In function ‘main’:',
    "main.c:4:5: error: unknown type name ‘innt’; did you mean ‘int’?",
    '    4 |     innt x = 1;',
    '      |     ^~~~',
    'main.c:7:12: warning: unused variable ‘y’ [-Wunused-variable]',
    "main.c:2:1: note: declared here",
  ].join('\n');
  assert.deepEqual(parseCompileLog(log, 'c'), [
    { line: 4, column: 5, severity: 'error', message: "unknown type name ‘innt’; did you mean ‘int’?" },
    { line: 7, column: 12, severity: 'warning', message: 'unused variable ‘y’ [-Wunused-variable]' },
  ]);
});

test('javac and go report lines without columns or with them', () => {
  assert.deepEqual(parseCompileLog("Main.java:3: error: ';' expected\n        int x = 1\n                 ^\n1 error", 'java'), [
    { line: 3, column: 1, severity: 'error', message: "';' expected" },
  ]);
  assert.deepEqual(parseCompileLog('# command-line-arguments\n./main.go:6:2: undefined: fmt.Printn', 'go'), [
    { line: 6, column: 2, severity: 'error', message: 'undefined: fmt.Printn' },
  ]);
});

test('python syntax errors point at the reported line', () => {
  const log = ['  File "/work/main.py", line 3', '    print(x', '         ^', 'SyntaxError: \'(\' was never closed'].join('\n');
  const [d] = parseCompileLog(log, 'python');
  assert.equal(d.line, 3);
  assert.equal(d.severity, 'error');
  assert.match(d.message, /^SyntaxError: '\(' was never closed/);
});

test('a log without locations gives no markers', () => {
  assert.deepEqual(parseCompileLog('compiler crashed', 'cpp'), []);
  assert.deepEqual(parseCompileLog('', 'python'), []);
});
