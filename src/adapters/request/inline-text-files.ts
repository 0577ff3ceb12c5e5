/**
 * Local servers take files no other way than as text in the message
 * (docs/wire-protocol.md#messages), so a `file` part holding a text file becomes a text part `<file
 * name="...">\n...\n</file>` (docs/wire-protocol.md#messages). A file that is not text, or one
 * named only by an id, cannot reach such a server: 400 before sending.
 */
import { SvirError } from '../../errors.js';
import type { RequestRewrite } from './request-draft.js';
import { contentParts, filePartSchema } from './content-part.js';
import { parseDataUrl } from './parse-data-url.js';

const TEXT_MEDIA = /^(text\/[\w.+-]+|application\/(json|xml|yaml|x-yaml|toml|javascript|x-sh|sql|[\w.-]+\+(json|xml)))$/;

function fileText(fileData: string | undefined): string | undefined {
  if (fileData === undefined) return undefined;
  const dataUrl = parseDataUrl(fileData);
  if (dataUrl === undefined || !TEXT_MEDIA.test(dataUrl.mediaType)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(dataUrl.bytes);
  } catch {
    return undefined;
  }
}

export const inlineTextFiles: RequestRewrite = (draft, backend) => {
  let changed = false;
  let refused: string | undefined;
  const messages = draft.body.messages.map((message) => {
    const parts = contentParts(message.content);
    if (parts === undefined) return message;
    let touched = false;
    const content = parts.map((part) => {
      const file = filePartSchema.safeParse(part);
      if (!file.success) return part;
      const name = file.data.file.filename ?? 'file';
      const text = fileText(file.data.file.file_data);
      if (text === undefined) {
        refused ??= name;
        return part;
      }
      touched = true;
      const escapedName = name.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
      return { type: 'text', text: `<file name="${escapedName}">\n${text}\n</file>` };
    });
    if (!touched) return message;
    changed = true;
    return { ...message, content };
  });
  if (refused !== undefined) {
    return new SvirError('unsupported_content', {
      message: `Backend "${backend.config.name}" takes files only as text: "${refused}" is not a text file sent as a data URL.`,
      param: 'messages',
      backend: backend.config.name,
    });
  }
  if (!changed) return draft;
  return { body: { ...draft.body, messages }, changes: [...draft.changes, 'text files sent inline as <file> text'] };
};
