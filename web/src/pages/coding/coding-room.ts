// The coding round: problem, Monaco editor with the six languages, run samples / submit over
// the websocket, live evidence, compile errors as markers at their lines. Editor changes go out
// as throttled `code_change` messages so the recording has the code timeline.
import { CodeEditor } from '../../editor/code-editor';
import { parseCompileLog } from '../../editor/compile-diagnostics';
import { h } from '../../shared/dom';
import type {
  ClientMessage,
  CodingTask,
  FeedbackEvent,
  JudgeCaseEvent,
  Language,
  SubmissionQueuedEvent,
  SubmissionResult,
} from '../../shared/protocol';
import { LANGUAGES, isLanguage } from '../../shared/protocol';
import { EvidenceView } from './evidence-view';
import { ProblemView } from './problem-view';

const CODE_CHANGE_INTERVAL_MS = 1000;
const LANGUAGE_KEY = 'viva.language';

export class CodingRoom {
  readonly element: HTMLElement;
  private readonly problem = new ProblemView();
  private readonly evidence = new EvidenceView();
  private readonly editor: CodeEditor;
  private readonly languageSelect: HTMLSelectElement;
  private readonly runButton = h('button', { type: 'button', class: 'secondary', 'data-testid': 'run-code' }, 'Run samples');
  private readonly submitButton = h('button', { type: 'button', class: 'primary', 'data-testid': 'submit-code' }, 'Submit');
  private task: CodingTask | null = null;
  private pendingChange: { language: Language; code: string } | null = null;
  private changeTimer: number | null = null;
  private lastSentCode = new Map<string, string>();
  private submittedLanguage: Language | null = null;
  private ready = false;

  constructor(
    private readonly send: (message: ClientMessage) => void,
    private readonly notify: (message: string) => void,
    private readonly maxCodeBytes = 64 * 1024,
  ) {
    const saved = localStorage.getItem(LANGUAGE_KEY) ?? 'python';
    const initial: Language = isLanguage(saved) ? saved : 'python';
    this.languageSelect = h(
      'select',
      { id: 'language-select', 'data-testid': 'language-select' },
      LANGUAGES.map((l) => h('option', { value: l.id, selected: l.id === initial }, l.label)),
    );
    const editorHost = h('div', { class: 'editor-host', 'data-testid': 'code-editor' });
    this.element = h(
      'section',
      { class: 'coding-room', 'aria-label': 'Coding round', 'data-testid': 'coding-room' },
      this.problem.element,
      h(
        'div',
        { class: 'editor-pane' },
        h(
          'div',
          { class: 'editor-toolbar', role: 'toolbar', 'aria-label': 'Editor actions' },
          h('label', { for: 'language-select' }, 'Language'),
          this.languageSelect,
          h('span', { class: 'spacer' }),
          this.runButton,
          this.submitButton,
        ),
        editorHost,
        this.evidence.element,
      ),
    );
    this.editor = new CodeEditor(editorHost, initial, (language, code) => this.codeChanged(language, code));
    this.languageSelect.addEventListener('change', () => {
      const language = this.languageSelect.value;
      if (!isLanguage(language)) return;
      localStorage.setItem(LANGUAGE_KEY, language);
      this.editor.setLanguage(language);
    });
    this.runButton.addEventListener('click', () => this.submit('run'));
    this.submitButton.addEventListener('click', () => this.submit('submit'));
    this.setButtons(false);
  }

  setTask(task: CodingTask): void {
    this.task = task;
    this.problem.show(task);
    this.editor.setTask(task);
    this.ready = true;
    this.setButtons(true);
  }

  queued(event: SubmissionQueuedEvent): void {
    this.evidence.queued(event);
  }

  caseResult(event: JudgeCaseEvent): void {
    this.evidence.caseResult(event);
  }

  interviewerSaid(event: FeedbackEvent): void {
    if (event.submission_id) this.evidence.interviewerSaid(event.submission_id, event.text);
  }

  result(result: SubmissionResult): void {
    this.evidence.result(result);
    this.setButtons(true);
    const language = result.language ?? this.submittedLanguage ?? this.editor.currentLanguage;
    if (!result.compile.ok && language === this.editor.currentLanguage) {
      this.editor.showDiagnostics(parseCompileLog(result.compile.log, language));
    }
  }

  /** Shown when the server refused a submission (an `error` event while judging). */
  submissionRefused(): void {
    this.setButtons(true);
  }

  disable(): void {
    this.ready = false;
    this.setButtons(false);
  }

  markers(): { line: number; message: string }[] {
    return this.editor.markers();
  }

  dispose(): void {
    if (this.changeTimer !== null) window.clearTimeout(this.changeTimer);
    this.editor.dispose();
  }

  private submit(kind: 'run' | 'submit'): void {
    if (!this.task || !this.ready) return;
    const code = this.editor.code;
    if (new TextEncoder().encode(code).length > this.maxCodeBytes) {
      this.notify(`The code is larger than ${Math.round(this.maxCodeBytes / 1024)} KB; shorten it before submitting.`);
      return;
    }
    this.flushCodeChange();
    this.editor.clearDiagnostics();
    this.submittedLanguage = this.editor.currentLanguage;
    this.send({ type: 'submit', problem_id: this.task.problem_id, language: this.editor.currentLanguage, code, kind });
    this.evidence.pending(kind);
    this.setButtons(false);
  }

  private codeChanged(language: Language, code: string): void {
    if (!this.task) return;
    this.pendingChange = { language, code };
    if (this.changeTimer === null) {
      this.changeTimer = window.setTimeout(() => this.flushCodeChange(), CODE_CHANGE_INTERVAL_MS);
    }
  }

  private flushCodeChange(): void {
    if (this.changeTimer !== null) window.clearTimeout(this.changeTimer);
    this.changeTimer = null;
    const change = this.pendingChange;
    this.pendingChange = null;
    if (!change || !this.task) return;
    const key = `${this.task.problem_id}/${change.language}`;
    if (this.lastSentCode.get(key) === change.code) return;
    this.lastSentCode.set(key, change.code);
    this.send({ type: 'code_change', problem_id: this.task.problem_id, language: change.language, code: change.code });
  }

  private setButtons(enabled: boolean): void {
    this.runButton.disabled = !enabled;
    this.submitButton.disabled = !enabled;
    this.submitButton.textContent = enabled ? 'Submit' : this.ready ? 'Judging…' : 'Submit';
  }
}
