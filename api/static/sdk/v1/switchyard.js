/*! Switchyard browser SDK v1.1.0 — no dependencies.
 *
 *   <script src="https://API/sdk/v1/switchyard.js" integrity="sha384-…" crossorigin="anonymous"></script>
 *   const sy = Switchyard({ publicKey: 'pk_live_mer_…', checkoutSessionId: 'cks_…' });
 *   const card = sy.mountCard('#card', { onChange: (state) => … });
 *   card.on('ready', (session) => …);
 *   const token = await card.tokenize({ purpose: 'instrument_enrollment' });   // { tokenId, last4, card_brand, … }
 *   const result = await card.enroll({ tokenId: token.tokenId });                // zero-amount verification + save
 *   // Without a checkoutSessionId, pass the enrolment token your server minted for the customer
 *   // (POST /merchants/:merchant_id/enrolment-tokens): card.enroll({ tokenId, enrolmentToken }).
 *
 * Paying the checkout the session was opened for (checkoutSessionId): tokenize, then confirm. The amount, currency
 * and customer come from the checkout session; a repeat (double click, retry) answers the same payment.
 *   await card.tokenize();
 *   const payment = await card.confirmCheckout();                  // { outcome, transactionId, orderId, message, … }
 *   const pix = await card.confirmCheckout({ paymentMethod: 'pix' }); // outcome 'pending', paymentInstructions
 *   const saved = await card.confirmCheckout({ paymentInstrumentId: 'pi_…' }); // one of checkout().savedInstruments
 *
 * 3-D Secure: pass a returnUrl (this page, or another page of the merchant's website). A card the issuer challenges
 * answers outcome 'pending' with nextAction, and the SDK sends the browser to nextAction.url (the bank's page);
 * afterwards the bank sends it back to returnUrl?transaction_id=…, where returnedPayment() reads how it ended.
 *   const payment = await card.confirmCheckout({ returnUrl: location.origin + location.pathname });
 *   const back = await card.returnedPayment();   // null unless this page is that return; else the payment
 *
 * Card fields live in an iframe served by the API origin: this page never sees the card number or the CVC,
 * only the non-sensitive results. Messages are exchanged by postMessage and checked by origin, source window
 * and a per-frame channel id on both sides.
 */
(function (global) {
  'use strict';

  var VERSION = '1.1.0';
  var script = document.currentScript;
  var API_ORIGIN = new URL(script && script.src ? script.src : global.location.href).origin;

  function randomId() {
    var bytes = new Uint8Array(16);
    global.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
  }

  /** Leaves for the bank's page: only a web address, never a script URL, is followed. */
  function redirectTo(url) {
    if (/^https?:\/\//.test(url)) global.location.assign(url);
  }

  function CardElement(frame, channel) {
    this._frame = frame;
    this._channel = channel;
    this._pending = {};
    this._handlers = {};
    this._ready = false;
    this._queue = [];
    var self = this;
    this._listener = function (event) {
      // Only our frame, from the API origin, on this element's channel.
      if (event.origin !== API_ORIGIN || event.source !== frame.contentWindow) return;
      var data = event.data;
      if (!data || data.source !== 'switchyard' || data.channel !== channel) return;
      self._receive(data);
    };
    global.addEventListener('message', this._listener);
  }

  CardElement.prototype._receive = function (data) {
    if (data.type === 'ready') {
      this._ready = true;
      this.session = data.session;
      var queued = this._queue;
      this._queue = [];
      for (var i = 0; i < queued.length; i += 1) this._post(queued[i]);
      this._emit('ready', data.session);
    } else if (data.type === 'resize') {
      this._frame.style.height = data.height + 'px';
    } else if (data.type === 'change') {
      this._emit('change', data.state);
    } else if (data.type === 'fatal') {
      this._emit('error', data.error);
    } else if (data.requestId && this._pending[data.requestId]) {
      var pending = this._pending[data.requestId];
      delete this._pending[data.requestId];
      if (data.type === 'error') {
        var error = new Error(data.error && data.error.message ? data.error.message : 'Request failed');
        error.code = data.error && data.error.code;
        error.details = data.error && data.error.details;
        error.status = data.error && data.error.status;
        pending.reject(error);
      } else {
        pending.resolve(data.result);
      }
    }
  };

  CardElement.prototype._post = function (message) {
    message.source = 'switchyard';
    message.channel = this._channel;
    if (!this._ready) this._queue.push(message);
    else this._frame.contentWindow.postMessage(message, API_ORIGIN);
  };

  CardElement.prototype._request = function (type, payload) {
    var self = this;
    return new Promise(function (resolve, reject) {
      var requestId = randomId();
      self._pending[requestId] = { resolve: resolve, reject: reject };
      self._post({ type: type, requestId: requestId, payload: payload || {} });
    });
  };

  CardElement.prototype._emit = function (name, value) {
    var list = this._handlers[name] || [];
    for (var i = 0; i < list.length; i += 1) list[i](value);
  };

  /** Events: ready (browser session), change ({complete, brand, empty, errors}), error. */
  CardElement.prototype.on = function (name, handler) {
    (this._handlers[name] = this._handlers[name] || []).push(handler);
    if (name === 'ready' && this._ready) handler(this.session);
    return this;
  };

  /** Encrypts the card inside the frame and registers it: resolves with the Token (non-sensitive parts only). */
  CardElement.prototype.tokenize = function (options) {
    options = options || {};
    return this._request('tokenize', { purpose: options.purpose, saveCard: options.saveCard, additionalMetadata: options.additionalMetadata });
  };

  /**
   * Verifies and saves a tokenized card (POST /sessions/:id/payment-instruments): { tokenId, enrolmentToken } outside
   * a checkout (the token the merchant's server minted for the customer), { tokenId } in a checkout's session.
   */
  CardElement.prototype.enroll = function (options) {
    return this._request('enroll', options || {});
  };

  /**
   * Pays the session's checkout (POST /sessions/:id/checkout/confirm) with the card tokenized last, or with
   * { paymentMethod: 'pix' | 'boleto' | 'debit_card' }. Resolves with the outcome: succeeded, pending, declined,
   * failed or expired (message in plain words); rejects on 4xx/5xx (error.code, error.status). With a returnUrl, a
   * challenged card (outcome pending, nextAction) resolves and the browser is sent to the bank's challenge page.
   */
  CardElement.prototype.confirmCheckout = function (options) {
    options = options || {};
    var payload = {};
    if (options.paymentMethod) payload.paymentMethod = options.paymentMethod;
    if (options.paymentInstrumentId) payload.paymentInstrumentId = options.paymentInstrumentId;
    if (options.returnUrl) payload.returnUrl = options.returnUrl;
    return this._request('confirmCheckout', payload).then(function (payment) {
      if (options.returnUrl && payment.nextAction) redirectTo(payment.nextAction.url);
      return payment;
    });
  };

  /**
   * On the page a 3-D Secure challenge returned to (?transaction_id=…): resolves with that payment of the session's
   * checkout as it stands (succeeded, failed with failureCode authentication_failed, …); null on any other visit.
   */
  CardElement.prototype.returnedPayment = function () {
    var transactionId = new URLSearchParams(global.location.search).get('transaction_id');
    if (!transactionId) return Promise.resolve(null);
    return this.checkout().then(function (view) {
      return view.payment && view.payment.transactionId === transactionId ? view.payment : null;
    });
  };

  /** GET /sessions/checkout for the session's checkout. */
  CardElement.prototype.checkout = function () {
    return this._request('checkout', {});
  };

  CardElement.prototype.focus = function () { this._post({ type: 'focus' }); };
  CardElement.prototype.clear = function () { this._post({ type: 'clear' }); };

  CardElement.prototype.destroy = function () {
    global.removeEventListener('message', this._listener);
    if (this._frame.parentNode) this._frame.parentNode.removeChild(this._frame);
  };

  function Switchyard(options) {
    if (!(this instanceof Switchyard)) return new Switchyard(options);
    if (!options || typeof options.publicKey !== 'string' || options.publicKey.indexOf('pk_') !== 0) {
      throw new Error('Switchyard: a public key (pk_live_…) is required; never use a secret key in a browser');
    }
    this.publicKey = options.publicKey;
    this.checkoutSessionId = options.checkoutSessionId || null;
    this.locale = options.locale || null;
  }

  /** Mounts the card fields into `target` (an element or a selector) and returns a CardElement. */
  Switchyard.prototype.mountCard = function (target, options) {
    options = options || {};
    var container = typeof target === 'string' ? document.querySelector(target) : target;
    if (!container) throw new Error('Switchyard: mount target not found');
    var channel = randomId();
    var config = {
      publicKey: this.publicKey,
      checkoutSessionId: this.checkoutSessionId,
      parentOrigin: global.location.origin,
      channel: channel,
      sdkVersion: VERSION,
    };
    var frame = document.createElement('iframe');
    frame.title = 'Secure card payment fields';
    frame.setAttribute('allowtransparency', 'true');
    frame.style.border = '0';
    frame.style.width = '100%';
    frame.style.height = '150px';
    // Configuration rides in the fragment: it never reaches a server log.
    frame.src = API_ORIGIN + '/sdk/v1/card-frame.html#' + encodeURIComponent(JSON.stringify(config));
    var element = new CardElement(frame, channel);
    if (typeof options.onChange === 'function') element.on('change', options.onChange);
    if (typeof options.onReady === 'function') element.on('ready', options.onReady);
    container.appendChild(frame);
    return element;
  };

  Switchyard.version = VERSION;
  global.Switchyard = Switchyard;
})(window);
