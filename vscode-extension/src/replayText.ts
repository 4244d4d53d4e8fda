// Whether the text in the editor is still the text a replay's
// counterexample was built from. Pure logic (no `vscode`): debug.ts
// feeds it the replayed model and the editor's documents, and tells the
// adapter (`weftSourceChanged`) when the answer is no, so that the replay
// ends instead of highlighting lines of another text.

import * as path from 'node:path';

/** The model a replay's trace is of. */
export interface ReplayedModel {
  /** The trace's uri ('' when unknown). */
  uri: string;
  /** The model's file, when known. */
  file?: string;
  /**
   * The editor version the trace is of: a trace the language server gave
   * for an open document. Undefined (or 0) for a trace read from a report,
   * which is of the file's text on disk.
   */
  version?: number;
}

/** What the editor knows of one of its documents. */
export interface EditorText {
  uri: string;
  /** The file, for a document of the file system. */
  file?: string;
  version: number;
  /** It has changes not saved to the file. */
  isDirty: boolean;
}

/** Whether the editor's document is the replayed model. */
export function isReplayedModel(model: ReplayedModel, text: EditorText): boolean {
  if (model.file && text.file && path.normalize(model.file) === path.normalize(text.file)) {
    return true;
  }
  return model.uri !== '' && model.uri === text.uri;
}

/**
 * Why the editor's text of the replayed model is no longer the trace's,
 * or undefined when it still is (as far as the editor can tell; the
 * adapter looks at the file on disk itself) or the document is another.
 */
export function staleReason(model: ReplayedModel, text: EditorText): string | undefined {
  if (!isReplayedModel(model, text)) {
    return undefined;
  }
  if (model.version !== undefined && model.version > 0) {
    return text.version === model.version ? undefined : `the editor holds version ${text.version}, the counterexample is of version ${model.version}`;
  }
  // A report's trace is of the text on disk: unsaved changes are another.
  return text.isDirty ? 'the editor holds changes not saved to the file the counterexample is of' : undefined;
}
