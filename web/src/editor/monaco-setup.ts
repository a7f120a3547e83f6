// Monaco, bundled (no CDN): the core API, the editor features, and the grammars of the six
// judge languages. Only the coding room and playback import it, so the lobby never loads it.
import * as monaco from 'monaco-editor/editor/editor.api.js';
import 'monaco-editor/features/register.all.js';
import 'monaco-editor/languages/definitions/python/register.js';
import 'monaco-editor/languages/definitions/cpp/register.js'; // registers both c and cpp
import 'monaco-editor/languages/definitions/java/register.js';
import 'monaco-editor/languages/definitions/go/register.js';
import 'monaco-editor/languages/definitions/javascript/register.js';

declare global {
  interface Window {
    MonacoEnvironment?: { getWorker(workerId: string, label: string): Worker };
  }
}

// The build emits the editor worker as a standalone module next to main.js.
window.MonacoEnvironment = {
  getWorker: () => new Worker('/assets/editor.worker.js', { type: 'module', name: 'monaco-editor' }),
};

export { monaco };
