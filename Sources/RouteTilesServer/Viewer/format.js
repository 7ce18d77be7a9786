// How the list, the details and playback write lengths and durations.
/* exported formatLength, formatDuration, formatAge, formatClock */

const numberFormat = new Intl.NumberFormat('en', { maximumFractionDigits: 1 });

function formatLength(m) {
  if (m == null) return '';
  if (m < 1000) return `${Math.round(m)} m`;
  return `${numberFormat.format(m >= 100000 ? Math.round(m / 1000) : Math.round(m / 100) / 10)} km`;
}

function formatDuration(s) {
  if (s == null) return '';
  if (s < 60) return `${Math.round(s)} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

// How long ago an ISO 8601 time was, for "last seen": "just now", "3 min ago", "2 h ago", "4 days ago".
function formatAge(iso, now = Date.now()) {
  const then = Date.parse(iso);
  if (!Number.isFinite(then)) return '';
  const s = Math.max(0, (now - then) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  const days = Math.floor(s / 86400);
  return `${days} day${days === 1 ? '' : 's'} ago`;
}

// A recorded time as the playback clock shows it: the date and the time of day in UTC, to the second.
function formatClock(milliseconds) {
  return new Date(Math.round(milliseconds / 1000) * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC');
}
