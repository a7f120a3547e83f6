// "Try this one again": /practice/ID?question=QID starts a short practice session that asks
// that question of interview ID again, graded the same way, then opens its interview room.
// The credential is the one this tab already holds for the interview (sent as a header).
import { ApiError, describeError, getJson, postJson } from '../../shared/api';
import { h, replaceChildren } from '../../shared/dom';
import { NoticeArea } from '../../shared/notices';
import type { SessionCreated } from '../../shared/protocol';
import type { ReportQuestion } from '../../shared/report';
import { loadReviewerToken, loadSession, saveSession } from '../../shared/session-store';
import type { Page } from '../page';

const practicePage: Page = (root, context) => {
  const sessionId = context.params[0];
  const questionId = context.query.get('question') ?? '';
  const notices = new NoticeArea();
  const body = h('div', {});
  root.append(h('main', { id: 'main', class: 'page page-narrow' }, h('h1', {}, 'Try this one again'), notices.element, body));
  const token = loadSession(sessionId)?.token ?? loadReviewerToken();
  if (!token) {
    replaceChildren(body, h('p', {}, 'Open this from the browser tab where you took the interview (its access stays in that tab).'), h('p', {}, h('a', { href: '/', 'data-nav': true }, 'Go to the lobby')));
    return () => undefined;
  }
  const base = `/api/sessions/${encodeURIComponent(sessionId)}`;
  void (async () => {
    try {
      const report = await getJson<{ questions?: ReportQuestion[] }>(`${base}/report`, token);
      const question = report.questions?.find((q) => q.question_id === questionId);
      if (!question) {
        replaceChildren(body, h('p', { role: 'alert' }, 'That question is not in this interview’s report.'));
        return;
      }
      const first = question.exchanges.find((ex) => ex.answer);
      const start = async (mode: 'text' | 'voice') => {
        try {
          const created = await postJson<SessionCreated>(`${base}/practice`, { question_id: questionId, mode }, token);
          saveSession({ session_id: created.session_id, token: created.token, ws_url: created.ws_url, mode, started: false });
          context.navigate(`/interview/${encodeURIComponent(created.session_id)}`);
        } catch (error) {
          notices.show(describeError(error), 'error', { code: error instanceof ApiError ? error.code : undefined });
        }
      };
      replaceChildren(
        body,
        h('p', {}, 'The same question, graded the same way. Your first attempt stays as it was; the practice report puts both side by side.'),
        h('blockquote', { 'data-testid': 'practice-question' }, question.question),
        first ? h('p', { class: 'hint' }, `Last time (${typeof question.score === 'number' ? `${Math.round(question.score * 100)}/100` : 'not scored'}): “${first.answer}”`) : null,
        question.missed.length ? h('ul', {}, question.missed.map((m) => h('li', {}, m))) : null,
        h(
          'p',
          { class: 'actions' },
          h('button', { type: 'button', class: 'primary', 'data-testid': 'practice-text', onclick: () => void start('text') }, 'Answer by typing'),
          h('button', { type: 'button', class: 'secondary', 'data-testid': 'practice-voice', onclick: () => void start('voice') }, 'Answer by speaking'),
        ),
      );
    } catch (error) {
      notices.show(describeError(error), 'error', { code: error instanceof ApiError ? error.code : undefined });
    }
  })();
  return () => undefined;
};

export default practicePage;
