import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clipsAt, codeAt, cueAt, evidenceAt, momentOf, parseVtt, saidUpTo, supersededUpTo, type TimelineEvent } from '../src/pages/playback/timeline';

const events: TimelineEvent[] = [
  { seq: 1, t_ms: 0, type: 'question', text: 'Q1', phase: 'warmup' },
  { seq: 2, t_ms: 1000, type: 'transcript_final', text: 'A1', turn_id: 't1' },
  { seq: 3, t_ms: 1500, type: 'feedback', kind: 'comment', text: 'F1' },
  { seq: 4, t_ms: 3000, type: 'code_change', problem_id: 'p', language: 'python', code: 'v1' },
  { seq: 5, t_ms: 4000, type: 'code_change', problem_id: 'p', language: 'python', code: 'v2' },
  { seq: 6, t_ms: 4100, type: 'judge_case', submission_id: 's1', case_id: 'c1', kind: 'sample', verdict: 'AC', time_ms: 5, memory_kb: 900 },
  { seq: 7, t_ms: 4200, type: 'judge_case', submission_id: 's1', case_id: 'c2', kind: 'hidden', verdict: 'WA', time_ms: 6, memory_kb: 900 },
  { seq: 8, t_ms: 4300, type: 'judge_result', submission_id: 's1', verdict: 'WA', passed: 1, total: 2, cases: [{ id: 'c1' }, { id: 'c2' }] },
];

test('what was said is cumulative up to t', () => {
  assert.deepEqual(saidUpTo(events, 999).map((l) => l.text), ['Q1']);
  assert.deepEqual(saidUpTo(events, 1500).map((l) => `${l.who}:${l.text}`), ['interviewer:Q1', 'candidate:A1', 'interviewer:F1']);
});

test('code at t is the latest recorded state', () => {
  assert.equal(codeAt(events, 2999), null);
  assert.equal(codeAt(events, 3500)?.code, 'v1');
  assert.equal(codeAt(events, 9999)?.code, 'v2');
});

test('evidence shows partial cases while judging, then the result', () => {
  assert.equal(evidenceAt(events, 4000), null);
  const partial = evidenceAt(events, 4150);
  assert.equal(partial?.verdict, null);
  assert.deepEqual(partial?.cases.map((c) => c.id), ['c1']);
  const done = evidenceAt(events, 5000);
  assert.equal(done?.verdict, 'WA');
  assert.equal(done?.total, 2);
});

test('an answer continued after a pause replaces its half and the reply it superseded', () => {
  const amended: TimelineEvent[] = [
    { seq: 1, t_ms: 0, type: 'question', text: 'Q1', turn_id: 't1' },
    { seq: 2, t_ms: 1000, type: 'transcript_final', text: 'A stack is', turn_id: 't1' },
    { seq: 3, t_ms: 1400, type: 'feedback', kind: 'correction', text: 'F-half', turn_id: 't1' },
    { seq: 4, t_ms: 1400, type: 'question', text: 'Q2', turn_id: 't2' },
    { seq: 5, t_ms: 2500, type: 'transcript_final', text: 'A stack is last in, first out', turn_id: 't1', amended: true },
    { seq: 6, t_ms: 2600, type: 'answer_amended', text: 'A stack is last in, first out', turn_id: 't1', supersedes: [3, 4] },
    { seq: 7, t_ms: 2700, type: 'feedback', kind: 'comment', text: 'F-whole', turn_id: 't1' },
    { seq: 8, t_ms: 2700, type: 'question', text: 'Q2b', turn_id: 't3' },
  ];
  // Before the amendment, playback shows what happened then.
  assert.deepEqual(saidUpTo(amended, 1500).map((l) => l.text), ['Q1', 'A stack is', 'F-half', 'Q2']);
  assert.deepEqual([...supersededUpTo(amended, 9999)], [3, 4]);
  assert.deepEqual(saidUpTo(amended, 9999).map((l) => `${l.who}:${l.text}`), [
    'interviewer:Q1', 'candidate:A stack is last in, first out', 'interviewer:F-whole', 'interviewer:Q2b',
  ]);
});

test('the exported WebVTT is read back as cues, and the cue at t is the one spoken', () => {
  const cues = parseVtt('WEBVTT\n\n1\n00:00:01.000 --> 00:00:03.500\n<v Interviewer>What is a heap?\n\n2\n00:00:05.250 --> 00:00:08.000\n<v Candidate>A tree &amp; an array &lt;3\n');
  assert.deepEqual(cues.map((c) => [c.start, c.end, c.who, c.text]), [
    [1000, 3500, 'interviewer', 'What is a heap?'],
    [5250, 8000, 'candidate', 'A tree & an array <3'],
  ]);
  assert.equal(cueAt(cues, 500), -1);
  assert.equal(cueAt(cues, 2000), 0);
  assert.equal(cueAt(cues, 4000), 0); // between cues: the last one said
  assert.equal(cueAt(cues, 6000), 1);
  const clips = [
    { turn_id: 'q1', speaker: 'interviewer' as const, t_ms: 1000, duration_ms: 2500, url: 'a' },
    { turn_id: 'q1', speaker: 'candidate' as const, t_ms: 5000, duration_ms: 3000, url: 'b' },
  ];
  assert.equal(momentOf('q1', 8400, clips), 5000); // the report's answer time → the answer's start
  assert.equal(momentOf('q9', 8400, clips), 8400);
  assert.deepEqual(clipsAt(clips, 6000).map((c) => [c.clip.url, c.offset]), [['b', 1000]]);
});

test('marked cues: a taken-back reply, a cut utterance and a typed answer', () => {
  const cues = parseVtt(
    'WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\n<v Interviewer><c.superseded>Noted. Next: heaps?</c> [answer continued]\n\n' +
      '2\n00:00:03.000 --> 00:00:04.000\n<v Interviewer><c.cut>What is a</c> [cut off]\n\n' +
      '3\n00:00:05.000 --> 00:00:06.000\n<v Candidate><c.typed>typed words</c>\n',
  );
  assert.deepEqual(cues.map((c) => [c.text, !!c.superseded, !!c.cut, !!c.typed]), [
    ['Noted. Next: heaps?', true, false, false],
    ['What is a', false, true, false],
    ['typed words', false, false, true],
  ]);
});
