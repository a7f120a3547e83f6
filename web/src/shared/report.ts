// The report's question-by-question part as the server sends it (agents/question_results.py):
// playback and the reviewer page read the same shape.

/** One question asked (the main one or a follow-up) and the answer to it. */
export interface ReportExchange {
  turn_id: string;
  follow_up: boolean;
  question: string;
  answer: string | null;
  /** Where the answer begins on the session clock (ms): the moment links point at. */
  answer_t_ms: number | null;
  score: number | null;
}

export interface ReportQuestion {
  question_id: string;
  question: string;
  topic: string;
  score: number | null;
  exchanges: ReportExchange[];
  covered: string[];
  missed: string[];
  next_step: string;
  /** Only once the interview has ended. */
  reference_answer?: string | null;
}
