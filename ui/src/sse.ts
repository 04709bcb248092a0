// A server-sent event stream read from a fetch() body (the Bearer token goes in its headers, which
// EventSource cannot send): each event's name ("message" when it has none) and its data.

/** Calls `on` per event until the stream ends (resolves) or fails (rejects). */
export async function readEvents(body: NonNullable<Response['body']>, on: (event: string, data: string) => void): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice('event:'.length).trim();
        else if (line.startsWith('data:')) data.push(line.slice('data:'.length).replace(/^ /, ''));
      }
      // Comments (the stream's first line, heartbeats) carry no data.
      if (data.length) on(event, data.join('\n'));
    }
  }
}
