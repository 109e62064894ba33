// What a room can be and what the client offers — modes, rabbit colours, bot levels, languages,
// the timers' range — as the server's GET /api/modes answers it, which is their one source. The
// server writes that same answer into the page, so the first paint (the language menu in the
// header, too) waits for no request.

export const CHOICES = JSON.parse(document.getElementById("choices").textContent);
