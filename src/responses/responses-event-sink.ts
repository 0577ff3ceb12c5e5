/** The streamed Responses answer as event objects (the events responses-stream-sink.ts orders). */
import type { ResponsesEvent } from './responses-event.js';
import { ResponsesStreamSink } from './responses-stream-sink.js';

export class ResponsesEventSink extends ResponsesStreamSink<ResponsesEvent[]> {
  private events: ResponsesEvent[] = [];

  take(): ResponsesEvent[] {
    const events = this.events;
    if (events.length > 0) this.events = [];
    return events;
  }

  protected emit(event: ResponsesEvent): void {
    this.events.push(event);
  }
}
