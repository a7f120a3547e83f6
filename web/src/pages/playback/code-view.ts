// The code as it was, in a read-only Monaco editor (loaded only by playback and the coding
// room: the lobby never pays for it).
import { monaco } from '../../editor/monaco-setup';
import { LANGUAGES } from '../../shared/protocol';

export class MonacoEditor {
  private readonly editor: monaco.editor.IStandaloneCodeEditor;

  constructor(container: HTMLElement) {
    const dark = window.matchMedia('(prefers-color-scheme: dark)').matches;
    this.editor = monaco.editor.create(container, {
      readOnly: true,
      domReadOnly: true,
      automaticLayout: true,
      minimap: { enabled: false },
      fontSize: 13,
      lineNumbersMinChars: 3,
      scrollBeyondLastLine: false,
      ariaLabel: 'The candidate’s code at this moment (read only)',
      theme: dark ? 'vs-dark' : 'vs',
    });
  }

  show(code: string, language: string): void {
    const model = this.editor.getModel();
    if (!model) return;
    const monacoId = LANGUAGES.find((l) => l.id === language)?.monacoId ?? 'plaintext';
    if (model.getLanguageId() !== monacoId) monaco.editor.setModelLanguage(model, monacoId);
    if (model.getValue() !== code) model.setValue(code);
  }

  dispose(): void {
    this.editor.getModel()?.dispose();
    this.editor.dispose();
  }
}
