// Turns a compiler or interpreter log into line-anchored diagnostics, so compile errors can be
// drawn in the editor at their lines. Pure: no DOM, no Monaco (unit-tested under node).
import type { Language } from '../shared/protocol';

export interface Diagnostic {
  line: number;
  column: number;
  severity: 'error' | 'warning';
  message: string;
}

// gcc/g++/clang/go/javac/node: "path/file.ext:LINE[:COL]: [error|warning:] message"
const FILE_LINE = /(?:^|[\s/\\(])[\w.\-+]*\.(?:c|cc|cpp|cxx|h|hpp|go|java|py|js|mjs|cjs):(\d+)(?::(\d+))?:?\s*(?:(fatal error|error|warning|note)\s*:\s*)?(.*)$/;
// Python: '  File "main.py", line 3' followed (a few lines on) by "SyntaxError: ..."
const PY_FILE_LINE = /File "([^"]+)", line (\d+)/;
const PY_ERROR = /^\s*([A-Z]\w*(?:Error|Exception|Warning))\b:?\s*(.*)$/;
const PY_CARET = /^\s*\^+\s*$/;

export function parseCompileLog(log: string, language: Language): Diagnostic[] {
  const lines = log.replace(/\r\n/g, '\n').split('\n');
  return language === 'python' ? parsePython(lines) : parseFileLine(lines);
}

function parseFileLine(lines: string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  for (const text of lines) {
    const match = FILE_LINE.exec(text);
    if (!match) continue;
    const kind = match[3] ?? 'error';
    if (kind === 'note') continue;
    const line = Number(match[1]);
    const column = match[2] ? Number(match[2]) : 1;
    const message = (match[4] ?? '').trim() || 'error';
    const key = `${line}:${column}:${message}`;
    if (!Number.isFinite(line) || line < 1 || seen.has(key)) continue;
    seen.add(key);
    out.push({ line, column: Math.max(1, column), severity: kind === 'warning' ? 'warning' : 'error', message });
  }
  return out;
}

function parsePython(lines: string[]): Diagnostic[] {
  // The last "File ..., line N" before the exception line is where the error is.
  let line: number | null = null;
  let column = 1;
  for (let i = 0; i < lines.length; i++) {
    const at = PY_FILE_LINE.exec(lines[i]);
    if (at) {
      line = Number(at[2]);
      column = 1;
      continue;
    }
    if (line !== null && PY_CARET.test(lines[i])) {
      // The caret sits under the source line printed just above it.
      const source = lines[i - 1] ?? '';
      const indent = source.length - source.trimStart().length;
      column = Math.max(1, lines[i].indexOf('^') - indent + 1);
      continue;
    }
    const error = PY_ERROR.exec(lines[i]);
    if (error && line !== null) {
      const message = error[2] ? `${error[1]}: ${error[2]}` : error[1];
      return [{ line, column, severity: 'error', message }];
    }
  }
  return [];
}
