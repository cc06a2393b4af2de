/* Hosted checkout page (/checkout/:checkout_session_id#key=pk_live_…), built on the Switchyard SDK. The public
 * key rides in the URL fragment, which browsers never send to a server. The buyer pays the checkout
 * (card.confirmCheckout → POST /sessions/:id/checkout/confirm): the amount shown and the amount charged both come
 * from the checkout session. A recurring offer is paid the same way and starts its subscription (a free trial
 * validates the card at zero amount); it is paid by card only, since renewals charge the saved card.
 * A card the issuer challenges (3-D Secure) sends the buyer to their bank's page (the SDK follows nextAction), which
 * brings them back to this page with ?transaction_id=…: the checkout then shows that payment's result.
 * The merchant's cancel_url is the "back" link; once paid the page sends the buyer to its success_url, if it has one.
 * A checkout in setup mode sells nothing: checkout-setup.js shows its "Save a card" page and saves the card. */
(function () {
  'use strict';

  var display = window.SwitchyardCheckout;
  var $ = display.$, show = display.show, hideResult = display.hideResult, money = display.money;
  var day = display.day, dateTime = display.dateTime, per = display.per, only = display.only;
  var checkoutId = location.pathname.split('/').pop();
  /* The way back from the bank's challenge page carries no fragment: the key is kept in this tab meanwhile. */
  var KEY_ITEM = 'switchyard-checkout-key:' + checkoutId;
  var key = new URLSearchParams(location.hash.slice(1)).get('key') || sessionStorage.getItem(KEY_ITEM);
  var returnedFrom = new URLSearchParams(location.search).get('transaction_id');
  var submit = $('submit');
  /* A pix is paid within minutes; a boleto clears in days, so its page asks less often. */
  var POLL_MS = { pix: 2000, boleto: 15000 };
  /* How often a payment in doubt (the bank's answer is being checked) is looked at again. */
  var IN_DOUBT_POLL_MS = 30000;
  /* How often a challenge left open (the buyer came back without finishing it) is looked at again. */
  var AUTH_POLL_MS = 3000;
  var METHOD_LABELS = { pix: 'Pix', boleto: 'boleto' };
  var state = { view: null, method: 'credit_card', cardComplete: false, busy: false, closed: false, recurring: false, trial: false, polling: null, savedCard: null, brand: null, inDoubt: false, setup: false };

  function recurringLine() {
    return state.view.summary.lines.filter(function (line) { return line.recurring !== null; })[0] || null;
  }

  function stopPolling() {
    if (state.polling) clearInterval(state.polling);
    state.polling = null;
  }

  function closed(title, text) {
    stopPolling();
    state.closed = true;
    $('closed-title').textContent = title;
    $('closed-text').textContent = text;
    $('closed-view').setAttribute('data-reason', title);
    only('closed-view');
  }

  function success(payment) {
    stopPolling();
    state.closed = true;
    var summary = state.view.summary;
    var subscription = payment.subscription;
    var trialing = subscription && subscription.status === 'trialing';
    $('receipt-title').textContent = trialing ? 'Your free trial has started' : subscription ? 'Subscription started' : 'Payment successful';
    $('receipt-amount').textContent = money(payment.amount, payment.currency) + (payment.amount === 0 ? ' charged today' : ' paid');
    display.renderLines($('receipt-items'), summary.lines);
    var line = recurringLine();
    if (subscription && subscription.nextBillingAt) {
      $('receipt-next').textContent = 'Next billing date: ' + day(subscription.nextBillingAt) +
        (line ? ' (' + money(line.recurring.amount, line.currency) + ' ' + per(line.recurring) + ')' : '') + '.';
      $('receipt-next').hidden = false;
      $('success-view').setAttribute('data-subscription-id', subscription.id);
      $('success-view').setAttribute('data-next-billing-at', subscription.nextBillingAt);
    }
    $('receipt-order').textContent = payment.orderId;
    $('success-view').setAttribute('data-order-id', payment.orderId);
    $('success-view').setAttribute('data-transaction-id', payment.transactionId);
    only('success-view');
    display.finished(state.view.checkout);
  }

  function pending(payment) {
    var instructions = payment.paymentInstructions || {};
    var boleto = payment.paymentMethod === 'boleto';
    $('pending-title').textContent = boleto ? 'Pay the boleto to finish' : 'Pay with Pix to finish';
    $('pix-pending').hidden = boleto;
    $('boleto-pending').hidden = !boleto;
    $('copy-code').textContent = boleto ? 'Copy digitable line' : 'Copy code';
    $('pix-code').value = (boleto ? instructions.barcode : instructions.qr_code_text) || '';
    // The QR image is an SVG data URL drawn by the API from the code itself; nothing else is put in src.
    if (!boleto && payment.qrCodeImage && /^data:image\/svg\+xml;base64,/.test(payment.qrCodeImage)) {
      $('pix-qr').src = payment.qrCodeImage;
      $('pix-qr').hidden = false;
    }
    $('pending-view').setAttribute('data-transaction-id', payment.transactionId);
    $('pending-view').setAttribute('data-method', payment.paymentMethod);
    $('pending-expiry').textContent = instructions.expires_at
      ? (boleto ? 'Due ' + day(instructions.expires_at) : 'Pay before ' + dateTime(instructions.expires_at)) + '.'
      : '';
    var link = boleto ? instructions.boleto_url : instructions.qr_code_url;
    $('pix-link').textContent = boleto ? 'Open the boleto' : 'Open the QR code page';
    if (link && /^https?:\/\//.test(link)) { $('pix-link').href = link; $('pix-link').hidden = false; }
    only('pending-view');
    if (!state.polling) state.polling = setInterval(poll, POLL_MS[payment.paymentMethod] || POLL_MS.pix);
  }

  /* The bank's challenge is open: the SDK is taking the buyer there, or they came back without finishing it. */
  function authenticating(payment, leaving) {
    $('auth-text').textContent = leaving
      ? 'Taking you to your bank to confirm this payment (3-D Secure)…'
      : 'Your bank asks you to confirm this payment (3-D Secure). Finish it before ' + dateTime(payment.nextAction.expiresAt) + '.';
    var link = payment.nextAction.url;
    if (/^https?:\/\//.test(link)) $('auth-link').href = link;
    only('auth-view');
    if (!leaving && !state.polling) state.polling = setInterval(poll, AUTH_POLL_MS);
  }

  /* A payment that ended without taking the money: the form again, with the reason. */
  function failed(payment) {
    stopPolling();
    only('pay-view');
    show('bad', payment.message || 'The payment was not completed.', payment.failureCode);
    updateButton();
  }

  function poll() {
    card.checkout().then(function (view) {
      state.view = view;
      var payment = view.payment;
      if (payment && payment.outcome === 'in_doubt') return;
      state.inDoubt = false;
      if (view.checkout.status === 'completed' && payment && payment.outcome === 'succeeded') success(payment);
      else if (payment && payment.outcome !== 'pending') failed(payment);
    }, function () { /* a missed poll is retried on the next tick */ });
  }

  /* The bank may have taken this payment without answering: say so, and offer no second payment until it is known. */
  function inDoubt(payment) {
    state.inDoubt = true;
    show('bad', payment.message);
    if (!state.polling) state.polling = setInterval(poll, IN_DOUBT_POLL_MS);
  }

  function updateButton() {
    if (state.closed || state.inDoubt) { submit.disabled = true; return; }
    if (state.setup) {
      submit.textContent = 'Save card';
      submit.disabled = state.busy || !state.cardComplete;
      return;
    }
    var due = state.view.summary.dueToday;
    var amount = money(due, state.view.summary.currency);
    if (METHOD_LABELS[state.method]) submit.textContent = 'Pay ' + amount + ' with ' + METHOD_LABELS[state.method];
    else if (state.trial) submit.textContent = due === 0 ? 'Start free trial' : 'Pay ' + amount + ' and start the trial';
    else if (state.recurring) submit.textContent = due === 0 ? 'Start subscription' : 'Pay ' + amount + ' and subscribe';
    else submit.textContent = 'Pay ' + amount;
    // The card frame knows the brands of any connector; this checkout takes only those its routing can charge.
    var byCard = state.method === 'credit_card' && !state.savedCard;
    var brandRefused = byCard && state.brand !== null && state.view.paymentMethods.cardBrands.indexOf(state.brand) < 0;
    $('brand-note').hidden = !brandRefused;
    if (brandRefused) $('brand-note').textContent = 'This shop does not take ' + display.brandName(state.brand) + ' cards. Use another card' + (methodCount() > 1 ? ' or another way to pay.' : '.');
    submit.disabled = state.busy || brandRefused || (byCard && !state.cardComplete);
  }

  function offeredMethods() {
    var methods = state.view.paymentMethods;
    return { credit_card: methods.cards, pix: methods.pix && !state.recurring, boleto: methods.boleto && !state.recurring };
  }

  function methodCount() {
    var offered = offeredMethods();
    return Object.keys(offered).filter(function (method) { return offered[method]; }).length;
  }

  function render(view) {
    state.view = view;
    state.setup = view.checkout.mode === 'setup';
    display.backLink(view.checkout);
    if (state.setup) {
      setupMode.render(view);
      return updateButton();
    }
    var checkout = view.checkout;
    var summary = view.summary;
    display.renderLines($('items'), summary.lines);
    $('total').textContent = money(summary.dueToday, summary.currency);
    $('total').setAttribute('data-amount', String(summary.dueToday));
    state.recurring = summary.lines.some(function (line) { return line.recurring !== null; });
    state.trial = summary.lines.some(function (line) { return line.trialDays > 0; });
    $('later').textContent = display.laterText(summary);
    $('later').hidden = !state.recurring;
    if (checkout.customerEmail) $('buyer').textContent = 'Paying as ' + (checkout.customerName ? checkout.customerName + ' · ' : '') + checkout.customerEmail;
    renderSavedCards(view.savedInstruments);
    // Renewals charge the saved card, so a recurring checkout is paid by card only. Only the methods the merchant's
    // routing can charge are listed (the server decides: paymentMethods comes from routing).
    var offered = offeredMethods();
    Array.prototype.forEach.call(document.querySelectorAll('.method'), function (button) { button.hidden = !offered[button.getAttribute('data-method')]; });
    $('methods').hidden = methodCount() < 2;
    if (!offered.credit_card) selectMethod(offered.pix ? 'pix' : offered.boleto ? 'boleto' : 'credit_card');
    var payment = view.payment;
    if (checkout.status === 'completed') {
      if (payment && payment.outcome === 'succeeded') success(payment);
      else closed('This checkout has already been paid', 'Nothing more is due. Check your email for the receipt.');
    } else if (checkout.status === 'expired') {
      closed('This checkout has expired', 'The link is no longer valid. Ask the seller for a new one.');
    } else if (checkout.status === 'abandoned') {
      closed('This checkout is no longer available', 'Ask the seller for a new link.');
    } else if (payment && payment.nextAction) {
      authenticating(payment, false);
    } else if (payment && payment.outcome === 'pending') {
      pending(payment);
    } else if (payment && payment.outcome === 'in_doubt') {
      inDoubt(payment);
    } else if (methodCount() === 0) {
      closed('Payment is not available yet', 'This shop cannot take this payment right now. Please contact the seller.');
    } else if (payment && payment.transactionId === returnedFrom) {
      // Back from the bank's challenge, and the payment did not go through: say why.
      failed(payment);
    }
    updateButton();
  }

  /* The customer's saved cards as choices, the first one picked, with "Use a new card" last; a saved card pays
   * without the card fields (confirmCheckout with its paymentInstrumentId). */
  function renderSavedCards(instruments) {
    var box = $('saved');
    if (box.getAttribute('data-rendered') === 'true') return;
    box.setAttribute('data-rendered', 'true');
    box.textContent = '';
    box.hidden = instruments.length === 0;
    if (instruments.length === 0) return;
    var legend = document.createElement('legend');
    legend.textContent = 'Your saved cards';
    box.appendChild(legend);
    var choices = instruments.map(function (c) {
      return { id: c.id, label: c.brand.toUpperCase() + ' •••• ' + c.last4 + ' (expires ' + ('0' + c.expMonth).slice(-2) + '/' + String(c.expYear).slice(-2) + ')' };
    }).concat([{ id: '', label: 'Use a new card' }]);
    choices.forEach(function (choice, index) {
      var label = document.createElement('label');
      label.className = 'saved-choice';
      var input = document.createElement('input');
      input.type = 'radio';
      input.name = 'saved-card';
      input.value = choice.id;
      input.checked = index === 0;
      input.addEventListener('change', function () { selectSavedCard(choice.id || null); });
      label.appendChild(input);
      label.appendChild(document.createTextNode(' ' + choice.label));
      box.appendChild(label);
    });
    selectSavedCard(instruments[0].id);
  }

  function selectSavedCard(instrumentId) {
    state.savedCard = instrumentId;
    $('card').hidden = instrumentId !== null;
    $('card-note').textContent = instrumentId
      ? 'The saved card is charged; its details stay with us and never reach this page.'
      : 'Card details are entered in a secure frame and encrypted before they leave this page.';
    hideResult();
    if (state.view) updateButton();
  }

  function selectMethod(method) {
    state.method = method;
    Array.prototype.forEach.call(document.querySelectorAll('.method'), function (button) {
      button.classList.toggle('selected', button.getAttribute('data-method') === method);
    });
    $('card-method').hidden = method !== 'credit_card';
    $('card-note').hidden = method !== 'credit_card';
    $('pix-method').hidden = method !== 'pix';
    $('boleto-method').hidden = method !== 'boleto';
    hideResult();
    if (state.view) updateButton();
  }

  function refusal(error) {
    if (error.code === 'RATE_LIMIT_EXCEEDED') return 'Too many unsuccessful attempts. For your security, payments are paused for a few minutes; please try again later.';
    if (error.status === 504) return 'The payment is still being processed. Wait a moment and press the button again: you will not be charged twice.';
    if (error.code === 'TOKEN_EXPIRED' || error.code === 'TOKEN_ALREADY_USED') return 'Please enter the card details again.';
    return error.message || 'Something went wrong. Please try again.';
  }

  function outcome(payment) {
    if (payment.nextAction) return authenticating(payment, true);
    if (payment.outcome === 'succeeded') return success(payment);
    if (payment.outcome === 'pending') return pending(payment);
    if (payment.outcome === 'in_doubt') { inDoubt(payment); return updateButton(); }
    card.clear();
    state.cardComplete = false;
    show('bad', payment.message || 'The payment was not completed. Please try again.', payment.failureCode);
  }

  function pay() {
    if (state.setup) return setupMode.save();
    // A card the issuer challenges comes back here, to this checkout's own address (the key stays in this tab).
    var returnUrl = location.origin + location.pathname;
    var attempt = state.method !== 'credit_card'
      ? card.confirmCheckout({ paymentMethod: state.method })
      : state.savedCard
      ? card.confirmCheckout({ paymentInstrumentId: state.savedCard, returnUrl: returnUrl })
      : card.tokenize({ purpose: 'one_time' }).then(function () { return card.confirmCheckout({ returnUrl: returnUrl }); });
    return attempt.then(outcome);
  }

  if (!key || !/^pk_live_(mer|org)_[0-9A-Za-z]+$/.test(key) || !/^cks_[0-9A-Za-z]+$/.test(checkoutId)) {
    show('bad', 'This checkout link is incomplete.');
    return;
  }
  sessionStorage.setItem(KEY_ITEM, key);
  // Back from the bank's page through the browser's history: a page restored as it was left would show stale state.
  window.addEventListener('pageshow', function (event) { if (event.persisted) location.reload(); });

  var card = Switchyard({ publicKey: key, checkoutSessionId: checkoutId }).mountCard('#card', {
    onChange: function (change) {
      state.cardComplete = change.complete;
      state.brand = change.brand || null;
      if (state.view) updateButton();
    },
  });
  var setupMode = display.setupMode(card, {
    closed: closed,
    done: function () { state.closed = true; },
    cardCleared: function () { state.cardComplete = false; },
  });
  card.on('ready', function (session) {
    $('merchant').textContent = session.merchant.name;
    card.checkout().then(render, function (error) { show('bad', 'The checkout could not be loaded: ' + error.message); });
  });
  card.on('error', function (error) { show('bad', error.message); });

  Array.prototype.forEach.call(document.querySelectorAll('.method'), function (button) {
    button.addEventListener('click', function () { selectMethod(button.getAttribute('data-method')); });
  });
  $('copy-code').addEventListener('click', function () {
    if (navigator.clipboard) navigator.clipboard.writeText($('pix-code').value).then(function () { $('copy-code').textContent = 'Copied'; }, function () {});
  });

  submit.addEventListener('click', function () {
    // One payment at a time: the button is off until the answer (the API is idempotent per checkout anyway).
    if (state.busy || state.closed) return;
    state.busy = true;
    submit.disabled = true;
    hideResult();
    pay()
      .catch(function (error) {
        if (error.code === 'INVALID_STATE_TRANSITION') return card.checkout().then(render);
        show('bad', refusal(error));
      })
      .then(function () {
        state.busy = false;
        updateButton();
      });
  });
})();
