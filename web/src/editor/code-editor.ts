// The candidate's editor: one Monaco model per language (switching language keeps what was
// typed in each), seeded from the problem's templates; compile diagnostics as markers.
import type { CodingTask, Language } from '../shared/protocol';
import { LANGUAGES } from '../shared/protocol';
import type { Diagnostic } from './compile-diagnostics';
import { monaco } from './monaco-setup';

const MARKER_OWNER = 'viva-judge';

export class CodeEditor {
  private readonly editor: monaco.editor.IStandaloneCodeEditor;
  private readonly models = new Map<string, monaco.editor.ITextModel>();
  private task: CodingTask | null = null;
  private language: Language;
  private readonly themeQuery = window.matchMedia('(prefers-color-scheme: dark)');
  private readonly onTheme = () => monaco.editor.setTheme(this.themeQuery.matches ? 'vs-dark' : 'vs');

  constructor(
    container: HTMLElement,
    initialLanguage: Language,
    private readonly onChange: (language: Language, code: string) => void,
  ) {
    this.language = initialLanguage;
    this.editor = monaco.editor.create(container, {
      automaticLayout: true,
      minimap: { enabled: false },
      fontSize: 14,
      lineNumbersMinChars: 3,
      scrollBeyondLastLine: false,
      tabSize: 4,
      renderWhitespace: 'selection',
      accessibilitySupport: 'auto',
      ariaLabel: 'Code editor. Press Alt+F1 for accessibility help; Ctrl+M toggles whether Tab moves focus.',
      theme: this.themeQuery.matches ? 'vs-dark' : 'vs',
    });
    this.themeQuery.addEventListener('change', this.onTheme);
    this.editor.onDidChangeModelContent(() => {
      this.onChange(this.language, this.code);
    });
  }

  get code(): string {
    return this.editor.getValue();
  }

  get currentLanguage(): Language {
    return this.language;
  }

  setTask(task: CodingTask): void {
    if (this.task?.problem_id === task.problem_id) {
      this.task = task;
      return;
    }
    this.task = task;
    this.show(this.language);
  }

  setLanguage(language: Language): void {
    this.language = language;
    if (this.task) this.show(language);
  }

  /** Replaces the current language's text (restoring a recorded or previous state). */
  setCode(code: string): void {
    this.editor.getModel()?.setValue(code);
  }

  showDiagnostics(diagnostics: Diagnostic[]): void {
    const model = this.editor.getModel();
    if (!model) return;
    monaco.editor.setModelMarkers(
      model,
      MARKER_OWNER,
      diagnostics.map((d) => {
        const line = Math.min(d.line, model.getLineCount());
        return {
          startLineNumber: line,
          startColumn: d.column,
          endLineNumber: line,
          endColumn: Math.max(d.column + 1, model.getLineMaxColumn(line)),
          message: d.message,
          severity: d.severity === 'warning' ? monaco.MarkerSeverity.Warning : monaco.MarkerSeverity.Error,
        };
      }),
    );
    if (diagnostics.length) this.editor.revealLineInCenterIfOutsideViewport(diagnostics[0].line);
  }

  clearDiagnostics(): void {
    for (const model of this.models.values()) monaco.editor.setModelMarkers(model, MARKER_OWNER, []);
  }

  /** Markers currently drawn, as (line, message) — what the candidate sees in the gutter. */
  markers(): { line: number; message: string }[] {
    const model = this.editor.getModel();
    if (!model) return [];
    return monaco.editor
      .getModelMarkers({ owner: MARKER_OWNER, resource: model.uri })
      .map((m) => ({ line: m.startLineNumber, message: m.message }));
  }

  focus(): void {
    this.editor.focus();
  }

  dispose(): void {
    this.themeQuery.removeEventListener('change', this.onTheme);
    this.editor.dispose();
    for (const model of this.models.values()) model.dispose();
    this.models.clear();
  }

  private show(language: Language): void {
    if (!this.task) return;
    const key = `${this.task.problem_id}/${language}`;
    let model = this.models.get(key);
    if (!model) {
      const monacoId = LANGUAGES.find((l) => l.id === language)?.monacoId ?? 'plaintext';
      const template = this.task.templates[language] ?? '';
      model = monaco.editor.createModel(template, monacoId);
      this.models.set(key, model);
    }
    this.editor.setModel(model);
    this.onChange(language, model.getValue());
  }
}
