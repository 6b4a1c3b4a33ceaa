// Shift+Enter in the browser: xterm.js sends it as a plain Enter ("\r"), so the app would
// send the prompt. Sent instead as the CSI u sequence terminals use for it, the app reads
// shift+enter and adds a new line, as the key help says.
(() => {
  let shiftEnter = false;
  window.addEventListener("keydown", (event) => {
    shiftEnter = event.key === "Enter" && event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey;
    if (shiftEnter) setTimeout(() => { shiftEnter = false; }, 0);
  }, true);
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (shiftEnter && data === '["stdin","\\r"]') {
      shiftEnter = false;
      data = '["stdin","\\u001b[13;2u"]';
    }
    return send.call(this, data);
  };
})();
