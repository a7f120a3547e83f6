// Lobby: who the candidate is, how they rate themselves, voice or text, which rounds.
// Creates the session over HTTP, keeps its token in this tab, and enters the interview room.
import { ApiError, createSession, describeError } from '../../shared/api';
import { h } from '../../shared/dom';
import { NoticeArea } from '../../shared/notices';
import type { SessionCreate } from '../../shared/protocol';
import { loadCandidateId, loadCandidateKey, saveCandidateId, saveCandidateKey, saveSession, storedSessions, tokenForCandidate } from '../../shared/session-store';
import { fetchProgress } from '../progress/progress-page';
import type { Page } from '../page';

const ROLES = [
  'Backend engineer (Python)',
  'Software engineer',
  'Full-stack engineer',
  'Data engineer',
  'Site reliability engineer',
];

const RATINGS: { key: keyof SessionCreate['self_ratings']; label: string; hint: string }[] = [
  { key: 'algorithms', label: 'Algorithms & data structures', hint: '1 = new to it, 5 = contest level' },
  { key: 'engineering', label: 'Engineering (systems, OS, networks, databases)', hint: '1 = new to it, 5 = expert' },
  { key: 'projects', label: 'Project experience', hint: '1 = coursework, 5 = led large systems' },
];

function ratingGroup(key: string, label: string, hint: string): HTMLFieldSetElement {
  const options = [1, 2, 3, 4, 5].map((n) =>
    h(
      'label',
      { class: 'segment' },
      h('input', { type: 'radio', name: `rating-${key}`, value: String(n), checked: n === 3, 'data-testid': `rating-${key}-${n}` }),
      h('span', {}, String(n)),
    ),
  );
  return h(
    'fieldset',
    { class: 'rating' },
    h('legend', {}, label),
    h('div', { class: 'segments' }, options),
    h('p', { class: 'hint' }, hint),
  );
}

const lobbyPage: Page = (root, { navigate }) => {
  const notices = new NoticeArea();
  const candidate = h('input', {
    id: 'candidate-id',
    name: 'candidate_id',
    required: true,
    maxlength: 64,
    autocomplete: 'username',
    placeholder: 'e.g. ada.lovelace',
    value: loadCandidateId(),
    'data-testid': 'candidate-id',
    'aria-describedby': 'candidate-id-hint',
  });
  const role = h('input', { id: 'role', name: 'role', list: 'role-options', required: true, maxlength: 80, value: ROLES[0] });
  const resume = h('textarea', {
    id: 'resume',
    name: 'resume_text',
    rows: 6,
    maxlength: 20000,
    placeholder: 'Paste your resume or a few lines about your projects (optional)',
  });
  const voice = h('input', { type: 'radio', name: 'mode', value: 'voice', checked: true, 'data-testid': 'mode-voice' });
  const text = h('input', { type: 'radio', name: 'mode', value: 'text', 'data-testid': 'mode-text' });
  const concepts = h('input', { type: 'checkbox', name: 'round', value: 'concepts', checked: true, 'data-testid': 'round-concepts' });
  const coding = h('input', { type: 'checkbox', name: 'round', value: 'coding', checked: true, 'data-testid': 'round-coding' });
  const maxQuestions = h('input', {
    id: 'max-questions',
    type: 'number',
    min: 1,
    max: 30,
    inputmode: 'numeric',
    placeholder: 'default',
    'data-testid': 'max-questions',
  });
  const start = h('button', { type: 'submit', class: 'primary large', 'data-testid': 'start-interview' }, 'Start interview');
  const modeHint = h('p', { class: 'hint', id: 'mode-hint' });
  const updateModeHint = () => {
    modeHint.textContent = voice.checked
      ? 'You will speak your answers; the browser asks for the microphone. Use headphones if you can.'
      : 'You will type your answers; the interviewer’s questions are shown as text.';
  };
  voice.addEventListener('change', updateModeHint);
  text.addEventListener('change', updateModeHint);
  updateModeHint();

  const form = h(
    'form',
    { class: 'lobby-form card', novalidate: true, 'aria-labelledby': 'lobby-title' },
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'candidate-id' }, 'Your name or candidate id'),
      candidate,
      h('p', { class: 'hint', id: 'candidate-id-hint' }, 'Use the same id next time: Viva remembers what to practise.'),
    ),
    h(
      'div',
      { class: 'field' },
      h('label', { for: 'role' }, 'Role you are preparing for'),
      role,
      h('datalist', { id: 'role-options' }, ROLES.map((r) => h('option', { value: r }))),
    ),
    h('div', { class: 'ratings' }, RATINGS.map((r) => ratingGroup(r.key, r.label, r.hint))),
    h(
      'fieldset',
      { class: 'choice' },
      h('legend', {}, 'How will you answer?'),
      h('label', { class: 'option' }, voice, h('span', {}, h('strong', {}, 'Voice'), ' — talk with the interviewer')),
      h('label', { class: 'option' }, text, h('span', {}, h('strong', {}, 'Text'), ' — type your answers')),
      modeHint,
    ),
    h(
      'fieldset',
      { class: 'choice' },
      h('legend', {}, 'Rounds'),
      h('label', { class: 'option' }, concepts, h('span', {}, h('strong', {}, 'Concepts'), ' — questions and follow-ups')),
      h('label', { class: 'option' }, coding, h('span', {}, h('strong', {}, 'Coding'), ' — solve a problem in the editor; tests run live')),
    ),
    h(
      'details',
      { class: 'more' },
      h('summary', {}, 'Resume and length (optional)'),
      h('div', { class: 'field' }, h('label', { for: 'resume' }, 'Resume'), resume),
      h(
        'div',
        { class: 'field field-inline' },
        h('label', { for: 'max-questions' }, 'Questions in the concepts round'),
        maxQuestions,
      ),
    ),
    h('div', { class: 'actions' }, start),
  );

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    notices.clear();
    const rounds = [concepts, coding].filter((c) => c.checked).map((c) => c.value as 'concepts' | 'coding');
    const candidateId = candidate.value.trim();
    if (!candidateId) {
      notices.show('Enter your name or a candidate id to start.');
      candidate.focus();
      return;
    }
    if (!rounds.length) {
      notices.show('Choose at least one round.');
      concepts.focus();
      return;
    }
    const ratings = Object.fromEntries(
      RATINGS.map((r) => {
        const checked = form.querySelector<HTMLInputElement>(`input[name="rating-${r.key}"]:checked`);
        return [r.key, Number(checked?.value ?? 3)];
      }),
    ) as SessionCreate['self_ratings'];
    const mode = voice.checked ? 'voice' : 'text';
    const body: SessionCreate = {
      candidate_id: candidateId,
      role: role.value.trim() || ROLES[0],
      mode,
      self_ratings: ratings,
      resume_text: resume.value.trim() || null,
      rounds,
      max_questions: maxQuestions.value ? Number(maxQuestions.value) : null,
      focus_topic: !focus.hidden && useFocus.checked && focusKey ? focusKey : null,
      candidate_key: loadCandidateKey(candidateId),
    };
    start.disabled = true;
    start.textContent = 'Starting…';
    try {
      const created = await createSession(body);
      saveCandidateId(candidateId);
      if (created.candidate_key) saveCandidateKey(candidateId, created.candidate_key);
      const { candidate_key: _issued, ...session } = created;
      saveSession({ ...session, mode, started: false, candidate_id: candidateId, joins_progress: created.joins_progress ?? true });
      navigate(`/interview/${encodeURIComponent(created.session_id)}`);
    } catch (error) {
      notices.show(describeError(error), 'error', { code: error instanceof ApiError ? error.code : undefined });
      start.disabled = false;
      start.textContent = 'Start interview';
    }
  });

  // Interviews this browser can rejoin (issue 23), with the candidate's progress page.
  const stored = storedSessions();
  const yours = stored.length
    ? h(
        'section',
        { class: 'card stored-sessions', 'data-testid': 'stored-sessions', 'aria-labelledby': 'stored-title' },
        h('h2', { id: 'stored-title' }, 'Your interviews in this browser'),
        h('ul', {}, stored.slice(0, 20).map((s) =>
          h('li', { 'data-session': s.session_id },
            h('a', { href: `/interview/${encodeURIComponent(s.session_id)}`, 'data-nav': true, 'data-testid': 'rejoin' }, `Rejoin ${s.session_id}`),
            s.created_at ? ` (${new Date(s.created_at).toLocaleString()})` : '',
            s.joins_progress === false ? h('span', { class: 'hint', 'data-testid': 'not-in-progress' }, ` · not in ${s.candidate_id ?? 'the'}’s progress (started without that id’s key, kept by the browser that first used it)`) : '',
            s.candidate_id ? [' · ', h('a', { href: `/candidates/${encodeURIComponent(s.candidate_id)}`, 'data-nav': true, 'data-testid': 'progress-link' }, `Progress of ${s.candidate_id}`)] : []))),
      )
    : '';
  // The suggested focus from the candidate's progress, offered before the next interview:
  // kept ticked, the interview starts on that topic and comes back to it more often.
  const focusText = h('span', {});
  const useFocus = h('input', { type: 'checkbox', id: 'use-focus', checked: true, 'data-testid': 'use-focus' });
  const focusLabel = h('label', { for: 'use-focus' }, 'Focus this interview on it');
  const focus = h('div', { class: 'hint', 'data-testid': 'lobby-focus', hidden: true }, h('p', {}, focusText), h('p', { class: 'check' }, useFocus, ' ', focusLabel));
  let focusKey: string | null = null;
  let focusFor: string | null = null; // the candidate id the focus was fetched for
  const showFocus = () => {
    const id = candidate.value.trim();
    // "change" fires again when the field loses focus (clicking Start): keep what is shown.
    if (id === focusFor) return;
    focusFor = id;
    const token = id ? tokenForCandidate(id) : null;
    focus.hidden = true;
    focusKey = null;
    if (!token) return;
    fetchProgress(id, token)
      .then((p) => {
        if (candidate.value.trim() !== id || !p.suggested_focus.topic) return;
        focusText.textContent = `Suggested focus: ${p.suggested_focus.topic}. ${p.suggested_focus.reason}`;
        focusKey = p.suggested_focus.topic_key;
        focusLabel.textContent = `Focus this interview on ${p.suggested_focus.topic}`;
        useFocus.parentElement!.hidden = !focusKey;
        focus.hidden = false;
        // The concepts round is where a weak topic comes back: keep it chosen.
        concepts.checked = true;
      })
      .catch(() => undefined); // a refused credential just offers nothing
  };
  candidate.addEventListener('change', showFocus);
  showFocus();

  root.append(
    h(
      'main',
      { id: 'main', class: 'page page-narrow lobby' },
      h(
        'header',
        { class: 'lobby-header' },
        h('h1', { id: 'lobby-title' }, 'Viva'),
        h('p', { class: 'lede' }, 'A mock technical interview you can talk to. Practise explaining concepts out loud, then solve a coding problem while the tests run.'),
      ),
      notices.element,
      yours,
      focus,
      form,
      h('footer', { class: 'page-footer' }, h('a', { href: '/review', 'data-nav': true }, 'Reviewer dashboard')),
    ),
  );
  candidate.focus();
  return () => undefined;
};

export default lobbyPage;
