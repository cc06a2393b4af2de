/* Switchyard card frame: the only place card data exists in the browser. Served by the API origin, embedded
 * by switchyard.js. Validates as the buyer types (the same rules as api/modules/tokens/card-rules.ts), encrypts
 * every field with WebCrypto (compact JWE, ECDH-ES + A256GCM, to the key published by the browser session —
 * docs/vault.md) and sends only ciphertext and non-sensitive metadata to POST /api/v1/tokens. The parent page
 * gets tokens and validation states, never digits. */
(function () {
  'use strict';

  var config;
  try {
    config = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  } catch (e) {
    config = null;
  }
  var API = '/api/v1';
  var session = null;
  var parentOrigin = config && config.parentOrigin;
  var $ = function (id) { return document.getElementById(id); };
  var inputs = { number: $('number'), expiry: $('expiry'), cvc: $('cvc'), name: $('name') };
  var touched = {};

  // ---- messaging -------------------------------------------------------------------------------------------
  function post(message) {
    if (!config || !window.parent || window.parent === window) return;
    message.source = 'switchyard';
    message.channel = config.channel;
    window.parent.postMessage(message, parentOrigin);
  }

  window.addEventListener('message', function (event) {
    // Only the page that embedded us, from the origin it declared, on our channel.
    if (!config || event.source !== window.parent || event.origin !== parentOrigin) return;
    var data = event.data;
    if (!data || data.source !== 'switchyard' || data.channel !== config.channel) return;
    if (data.type === 'focus') inputs.number.focus();
    else if (data.type === 'clear') clearFields();
    else if (data.type === 'tokenize') reply(data.requestId, tokenize(data.payload || {}));
    else if (data.type === 'enroll') reply(data.requestId, enroll(data.payload || {}));
    else if (data.type === 'checkout') reply(data.requestId, api('GET', '/sessions/checkout'));
    else if (data.type === 'confirmCheckout') reply(data.requestId, confirmCheckout(data.payload || {}));
  });

  function reply(requestId, promise) {
    promise.then(function (result) {
      post({ type: 'result', requestId: requestId, result: result });
    }, function (error) {
      post({ type: 'error', requestId: requestId, error: { message: error.message, code: error.code || null, status: error.status || null, details: error.details || null } });
    });
  }

  function resize() {
    post({ type: 'resize', height: Math.ceil(document.documentElement.getBoundingClientRect().height) + 4 });
  }

  // ---- API -------------------------------------------------------------------------------------------------
  function api(method, path, body) {
    var headers = { 'X-Public-Key': config.publicKey };
    if (session) headers['X-Session-Id'] = session.sessionId;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    return fetch(API + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit' })
      .then(function (response) {
        return response.text().then(function (text) {
          var json = text ? JSON.parse(text) : null;
          if (!response.ok) {
            var err = (json && json.error) || {};
            var error = new Error(err.message || ('HTTP ' + response.status));
            error.code = err.code;
            error.status = response.status;
            error.details = err.details;
            throw error;
          }
          return json;
        });
      });
  }

  // ---- card rules (mirror of card-rules.ts) ----------------------------------------------------------------
  var RULES = [
    { brand: 'elo', lengths: [16], ranges: [['401178', '401179'], ['431274', '431274'], ['438935', '438935'], ['451416', '451416'], ['457393', '457393'], ['457631', '457632'], ['504175', '504175'], ['506699', '506778'], ['509000', '509999'], ['627780', '627780'], ['636297', '636297'], ['636368', '636368'], ['650031', '650033'], ['650035', '650051'], ['650405', '650439'], ['650485', '650538'], ['650541', '650598'], ['650700', '650718'], ['650720', '650727'], ['650901', '650920'], ['651652', '651679'], ['655000', '655019'], ['655021', '655058']] },
    { brand: 'hipercard', lengths: [13, 16, 19], ranges: [['606282', '606282'], ['384100', '384100'], ['384140', '384140'], ['384160', '384160']] },
    { brand: 'amex', lengths: [15], ranges: [['34', '34'], ['37', '37']] },
    { brand: 'diners', lengths: [14, 16, 19], ranges: [['300', '305'], ['36', '36'], ['38', '39']] },
    { brand: 'jcb', lengths: [16, 17, 18, 19], ranges: [['3528', '3589']] },
    { brand: 'visa', lengths: [13, 16, 19], ranges: [['4', '4']] },
    { brand: 'mastercard', lengths: [16], ranges: [['51', '55'], ['2221', '2720']] },
    { brand: 'discover', lengths: [16, 17, 18, 19], ranges: [['6011', '6011'], ['644', '649'], ['65', '65'], ['622126', '622925']] },
  ];
  var BRAND_NAMES = { visa: 'Visa', mastercard: 'Mastercard', amex: 'Amex', elo: 'Elo', hipercard: 'Hipercard', discover: 'Discover', diners: 'Diners', jcb: 'JCB' };

  function ruleFor(pan) {
    for (var i = 0; i < RULES.length; i += 1) {
      for (var j = 0; j < RULES[i].ranges.length; j += 1) {
        var low = RULES[i].ranges[j][0];
        var head = pan.slice(0, low.length);
        if (head.length === low.length && head >= low && head <= RULES[i].ranges[j][1]) return RULES[i];
      }
    }
    return null;
  }

  function luhn(pan) {
    var sum = 0;
    for (var i = 0; i < pan.length; i += 1) {
      var digit = pan.charCodeAt(pan.length - 1 - i) - 48;
      if (i % 2 === 1) { digit *= 2; if (digit > 9) digit -= 9; }
      sum += digit;
    }
    return sum % 10 === 0;
  }

  var digits = function (value) { return value.replace(/\D/g, ''); };

  function readCard() {
    var pan = digits(inputs.number.value);
    var rule = ruleFor(pan);
    var exp = digits(inputs.expiry.value);
    var month = parseInt(exp.slice(0, 2), 10);
    var year = exp.length === 4 ? 2000 + parseInt(exp.slice(2), 10) : exp.length === 6 ? parseInt(exp.slice(2), 10) : NaN;
    var cvc = digits(inputs.cvc.value);
    var errors = {};
    var allowed = session ? session.settings.allowedCardBrands : null;
    if (!pan) errors.number = 'Enter the card number';
    else if (!rule) errors.number = pan.length >= 6 ? 'This card brand is not supported' : 'The card number is incomplete';
    else if (allowed && allowed.indexOf(rule.brand) < 0) errors.number = BRAND_NAMES[rule.brand] + ' cards are not accepted here';
    else if (pan.length < Math.min.apply(null, rule.lengths)) errors.number = 'The card number is incomplete';
    else if (rule.lengths.indexOf(pan.length) < 0 || !luhn(pan)) errors.number = 'The card number is not valid';
    var now = new Date();
    if (!exp) errors.expiry = 'Enter the expiry date';
    else if (!(month >= 1 && month <= 12) || isNaN(year)) errors.expiry = 'Use MM / YY';
    else if (Date.UTC(year, month, 1) <= now.getTime()) errors.expiry = 'The card has expired';
    else if (year > now.getUTCFullYear() + 20) errors.expiry = 'The expiry year is not valid';
    var cvcLength = rule && rule.brand === 'amex' ? 4 : 3;
    if (!cvc) errors.cvc = 'Enter the security code';
    else if (cvc.length !== cvcLength) errors.cvc = 'The security code has ' + cvcLength + ' digits';
    return { pan: pan, brand: rule ? rule.brand : null, month: month, year: year, cvc: cvc, name: inputs.name.value.trim(), errors: errors };
  }

  function render(showAll) {
    var card = readCard();
    ['number', 'expiry', 'cvc'].forEach(function (field) {
      var message = (showAll || touched[field]) ? (card.errors[field] || '') : '';
      $(field + '-error').textContent = message;
      inputs[field].classList.toggle('invalid', Boolean(message));
    });
    $('brand').textContent = card.brand ? BRAND_NAMES[card.brand] : '';
    inputs.cvc.maxLength = card.brand === 'amex' ? 4 : 3;
    // Validation state only: the parent never gets digits.
    post({ type: 'change', state: { complete: Object.keys(card.errors).length === 0, brand: card.brand, empty: !card.pan, errors: card.errors } });
    resize();
    return card;
  }

  function formatNumber() {
    var pan = digits(inputs.number.value).slice(0, 19);
    var rule = ruleFor(pan);
    var groups = rule && rule.brand === 'amex' ? [4, 6, 5] : [4, 4, 4, 4, 3];
    var out = [];
    var index = 0;
    for (var i = 0; i < groups.length && index < pan.length; i += 1) {
      out.push(pan.slice(index, index + groups[i]));
      index += groups[i];
    }
    inputs.number.value = out.join(' ');
  }

  function formatExpiry() {
    var exp = digits(inputs.expiry.value).slice(0, 4);
    inputs.expiry.value = exp.length > 2 ? exp.slice(0, 2) + ' / ' + exp.slice(2) : exp;
  }

  inputs.number.addEventListener('input', function () { formatNumber(); render(false); });
  inputs.expiry.addEventListener('input', function () { formatExpiry(); render(false); });
  inputs.cvc.addEventListener('input', function () { inputs.cvc.value = digits(inputs.cvc.value); render(false); });
  ['number', 'expiry', 'cvc'].forEach(function (field) {
    inputs[field].addEventListener('blur', function () { touched[field] = true; render(false); });
  });

  function clearFields() {
    inputs.number.value = inputs.expiry.value = inputs.cvc.value = inputs.name.value = '';
    touched = {};
    render(false);
  }

  // ---- encryption (compact JWE, ECDH-ES + A256GCM) ---------------------------------------------------------
  var subtle = window.crypto && window.crypto.subtle;
  var utf8 = function (text) { return new TextEncoder().encode(text); };

  function b64url(bytes) {
    var binary = '';
    for (var i = 0; i < bytes.length; i += 1) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function concat() {
    var total = 0;
    var i;
    for (i = 0; i < arguments.length; i += 1) total += arguments[i].length;
    var out = new Uint8Array(total);
    var offset = 0;
    for (i = 0; i < arguments.length; i += 1) { out.set(arguments[i], offset); offset += arguments[i].length; }
    return out;
  }

  function uint32(value) {
    return new Uint8Array([(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
  }

  function lengthPrefixed(bytes) { return concat(uint32(bytes.length), bytes); }

  function encryptField(field, plaintext) {
    var key = session.encryption;
    var ephemeral;
    var header;
    var protectedB64;
    return subtle.importKey('jwk', { kty: 'EC', crv: 'P-256', x: key.jwk.x, y: key.jwk.y, ext: true }, { name: 'ECDH', namedCurve: 'P-256' }, false, [])
      .then(function (recipient) {
        return subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, true, ['deriveBits']).then(function (pair) {
          ephemeral = pair;
          return subtle.exportKey('jwk', pair.publicKey);
        }).then(function (epk) {
          header = { alg: 'ECDH-ES', enc: 'A256GCM', kid: key.kid, epk: { kty: 'EC', crv: 'P-256', x: epk.x, y: epk.y }, sid: session.sessionId, fld: field };
          protectedB64 = b64url(utf8(JSON.stringify(header)));
          return subtle.deriveBits({ name: 'ECDH', public: recipient }, ephemeral.privateKey, 256);
        });
      })
      .then(function (shared) {
        var otherInfo = concat(lengthPrefixed(utf8('A256GCM')), lengthPrefixed(new Uint8Array(0)), lengthPrefixed(new Uint8Array(0)), uint32(256));
        return subtle.digest('SHA-256', concat(uint32(1), new Uint8Array(shared), otherInfo));
      })
      .then(function (cek) { return subtle.importKey('raw', cek, { name: 'AES-GCM' }, false, ['encrypt']); })
      .then(function (cek) {
        var iv = window.crypto.getRandomValues(new Uint8Array(12));
        return subtle.encrypt({ name: 'AES-GCM', iv: iv, additionalData: utf8(protectedB64), tagLength: 128 }, cek, utf8(plaintext))
          .then(function (sealed) {
            var bytes = new Uint8Array(sealed);
            return [protectedB64, '', b64url(iv), b64url(bytes.slice(0, bytes.length - 16)), b64url(bytes.slice(bytes.length - 16))].join('.');
          });
      });
  }

  // ---- operations ------------------------------------------------------------------------------------------
  function fail(message, code) {
    var error = new Error(message);
    error.code = code;
    return Promise.reject(error);
  }

  function tokenize(options) {
    if (!session) return fail('The card form is not ready yet', 'NOT_READY');
    var card = render(true);
    if (Object.keys(card.errors).length > 0) return fail('Check the card details', 'INVALID_CARD_DETAILS');
    $('status').textContent = 'Encrypting…';
    var fields = { number: card.pan, cvc: card.cvc, expiryMonth: String(card.month), expiryYear: String(card.year) };
    if (card.name) fields.name = card.name;
    var names = Object.keys(fields);
    return Promise.all(names.map(function (name) { return encryptField(name, fields[name]); }))
      .then(function (sealed) {
        var encryptedCard = {};
        names.forEach(function (name, i) { encryptedCard[name] = sealed[i]; });
        var body = {
          encryptedCard: encryptedCard,
          metadata: { brand: card.brand, last4: card.pan.slice(-4), expiryMonth: String(card.month), expiryYear: String(card.year), bin: card.pan.slice(0, card.pan.length >= 16 ? 8 : 6) },
        };
        if (options.purpose) body.purpose = options.purpose;
        if (typeof options.saveCard === 'boolean') body.save_card = options.saveCard;
        if (options.additionalMetadata) body.additionalMetadata = options.additionalMetadata;
        fields = null;
        return api('POST', '/tokens', body);
      })
      .then(function (token) {
        // The security code is for this one token: never keep it around.
        inputs.cvc.value = '';
        $('status').textContent = '';
        return token;
      }, function (error) {
        $('status').textContent = '';
        throw error;
      });
  }

  function enroll(options) {
    if (!session) return fail('The card form is not ready yet', 'NOT_READY');
    var body = { tokenId: options.tokenId };
    ['customerId', 'currency', 'country', 'connectorId', 'enrolmentToken'].forEach(function (name) { if (options[name]) body[name] = options[name]; });
    return api('POST', '/sessions/' + encodeURIComponent(session.sessionId) + '/payment-instruments', body);
  }

  function confirmCheckout(options) {
    if (!session) return fail('The card form is not ready yet', 'NOT_READY');
    var body = {};
    if (options.paymentMethod) body.paymentMethod = options.paymentMethod;
    if (options.paymentInstrumentId) body.paymentInstrumentId = options.paymentInstrumentId;
    if (options.returnUrl) body.returnUrl = options.returnUrl;
    return api('POST', '/sessions/' + encodeURIComponent(session.sessionId) + '/checkout/confirm', body);
  }

  function start() {
    if (!config || !config.publicKey || !parentOrigin) {
      $('status').textContent = 'This frame must be mounted by the Switchyard SDK.';
      return;
    }
    if (!subtle) {
      $('status').textContent = 'This browser cannot encrypt card data (a secure context is required).';
      post({ type: 'fatal', error: { message: 'WebCrypto is unavailable', code: 'INSECURE_CONTEXT' } });
      return;
    }
    var body = { sdkVersion: config.sdkVersion || '1.0.0' };
    if (config.checkoutSessionId) body.checkoutSessionId = config.checkoutSessionId;
    api('POST', '/sessions', body).then(function (created) {
      session = created;
      $('name-field').hidden = !session.settings.requireCardholderName;
      post({ type: 'ready', session: { sessionId: session.sessionId, expiresAt: session.expiresAt, merchant: session.merchant, capabilities: session.capabilities, settings: session.settings, installmentsSupported: session.installmentsSupported, installmentOptions: session.installmentOptions } });
      render(false);
      // Keep the session alive while the buyer is on the page.
      setInterval(function () {
        api('POST', '/sessions/' + encodeURIComponent(session.sessionId) + '/refresh').then(function (refreshed) { session = refreshed; }, function () {});
      }, 10 * 60 * 1000);
    }, function (error) {
      $('status').textContent = 'The payment form could not start: ' + error.message;
      post({ type: 'fatal', error: { message: error.message, code: error.code || null } });
    });
  }

  start();
})();
