// How the list, the details and playback write lengths and durations.
/* exported formatLength, formatDuration */

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
