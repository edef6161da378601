import { api } from '../api';

/** One ticket of a show with its buyer (GET /admin/shows/{showId}/attendees). */
export interface AttendeeRow {
  readonly ticketId: string;
  readonly orderId: string;
  readonly username: string;
  readonly sectionId: string;
  readonly seatId: string | null;
  readonly code: string;
  readonly status: 'VALID' | 'USED' | 'INVALID';
  readonly checkedIn: boolean;
  readonly usedAt: string | null;
}

export const fetchAttendees = (showId: string, q: string, limit: number, offset: number): Promise<AttendeeRow[]> =>
  api<{ attendees: AttendeeRow[] }>(`/admin/shows/${encodeURIComponent(showId)}/attendees?${new URLSearchParams({ q, limit: String(limit), offset: String(offset) })}`)
    .then((r) => r.attendees);
