// Typed answers: the text-mode input, and the fallback whenever speaking is not possible.
import { h } from '../../shared/dom';

export class AnswerForm {
  readonly element: HTMLFormElement;
  private readonly input = h('textarea', {
    id: 'answer-input',
    rows: 3,
    maxlength: 8000,
    placeholder: 'Type your answer… (Enter sends, Shift+Enter for a new line)',
    'data-testid': 'answer-input',
  });
  private readonly send = h('button', { type: 'submit', class: 'primary', 'data-testid': 'answer-send' }, 'Send');

  constructor(private readonly onAnswer: (text: string) => void, label: string) {
    this.element = h(
      'form',
      { class: 'answer-form' },
      h('label', { for: 'answer-input', class: 'answer-label' }, label),
      h('div', { class: 'answer-row' }, this.input, this.send),
    );
    this.element.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.submit();
      }
    });
  }

  disable(): void {
    this.input.disabled = true;
    this.send.disabled = true;
  }

  focus(): void {
    this.input.focus();
  }

  private submit(): void {
    const text = this.input.value.trim();
    if (!text || this.send.disabled) return;
    this.onAnswer(text);
    this.input.value = '';
  }
}
