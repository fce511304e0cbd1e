// The section of an iteration's prompt that carries the notes a person sent the run (docs/notes.md): clearly
// marked, after everything else the prompt says, so the agent reads it as this iteration's extra instruction.

/** One note as the prompt shows it. */
export interface PromptNote {
  id: number;
  text: string;
  /** When it was written (epoch ms). */
  createdAt: number;
}

/** The heading that opens the notes section. */
export const NOTES_HEADING = '## Notes from the user (sent while the loop was running)';

/** The notes section (empty string without notes). */
export function notesSection(notes: readonly PromptNote[]): string {
  if (notes.length === 0) return '';
  const lines = [
    NOTES_HEADING,
    '',
    notes.length === 1
      ? 'A person watching this loop sent the note below. It is delivered once, to this iteration: take it into account now.'
      : 'A person watching this loop sent the notes below, oldest first. They are delivered once, to this iteration: take them into account now.',
  ];
  for (const note of notes) {
    lines.push('', `### Note ${note.id} (${new Date(note.createdAt).toISOString().slice(0, 16).replace('T', ' ')} UTC)`, '', note.text.trimEnd());
  }
  lines.push('', '## End of the notes from the user', '');
  return lines.join('\n');
}

/** The prompt with the notes section appended (the prompt unchanged without notes). */
export function withNotes(prompt: string, notes: readonly PromptNote[]): string {
  if (notes.length === 0) return prompt;
  return `${prompt.trimEnd()}\n\n${notesSection(notes)}`;
}
