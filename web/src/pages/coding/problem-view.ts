// The problem: title, limits, statement and the public sample tests.
import { h, renderRichText, replaceChildren } from '../../shared/dom';
import type { CodingTask } from '../../shared/protocol';

export class ProblemView {
  readonly element = h('section', { class: 'problem card', 'aria-labelledby': 'problem-title', 'data-testid': 'problem' });

  show(task: CodingTask): void {
    const limits: string[] = [];
    if (task.limits?.time_ms) limits.push(`Time ${task.limits.time_ms} ms`);
    if (task.limits?.memory_mb) limits.push(`Memory ${task.limits.memory_mb} MB`);
    this.element.dataset.problemId = task.problem_id;
    replaceChildren(
      this.element,
      h('h2', { id: 'problem-title' }, task.title || task.problem_id),
      limits.length ? h('p', { class: 'limits' }, limits.join(' · ')) : null,
      h('div', { class: 'statement', 'data-testid': 'problem-statement' }, renderRichText(task.statement)),
      task.samples.length ? h('h3', {}, 'Examples') : null,
      task.samples.map((sample, index) =>
        h(
          'div',
          { class: 'sample', 'data-testid': 'sample' },
          h('div', {}, h('h4', {}, `Input ${index + 1}`), h('pre', {}, sample.input)),
          h('div', {}, h('h4', {}, `Output ${index + 1}`), h('pre', {}, sample.output)),
          sample.explanation ? h('p', { class: 'hint' }, sample.explanation) : null,
        ),
      ),
    );
  }
}
