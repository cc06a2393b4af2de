/* Hosted checkout page (/checkout/:checkout_session_id#key=pk_live_…), built on the Switchyard SDK. The public
 * key rides in the URL fragment, which browsers never send to a server. Until transactions land, submitting
 * verifies and saves the card for the checkout's customer (POST /sessions/:id/payment-instruments). */
(function () {
  'use strict';

  var $ = function (id) { return document.getElementById(id); };
  var checkoutId = location.pathname.split('/').pop();
  var key = new URLSearchParams(location.hash.slice(1)).get('key');
  var submit = $('submit');
  var complete = false;

  function show(kind, text) {
    var box = $('result');
    box.hidden = false;
    box.className = 'result ' + kind;
    box.textContent = text;
  }

  function money(amount, currency) {
    var format = new Intl.NumberFormat(undefined, { style: 'currency', currency: currency });
    var digits = format.resolvedOptions().maximumFractionDigits;
    return format.format(amount / Math.pow(10, digits));
  }

  function renderCheckout(view) {
    var checkout = view.checkout;
    var list = $('items');
    var total = 0;
    var currency = checkout.selectedCurrency || (checkout.items[0] && checkout.items[0].currency) || 'USD';
    list.textContent = '';
    checkout.items.forEach(function (item, index) {
      var unit = item.firstChargeAmount === null ? item.amount : item.firstChargeAmount;
      total += unit * item.quantity;
      var li = document.createElement('li');
      var label = document.createElement('span');
      label.textContent = 'Item ' + (index + 1) + ' × ' + item.quantity;
      var detail = document.createElement('span');
      detail.className = 'detail';
      detail.textContent = item.installments > 1 ? item.installments + ' installments' : (item.firstChargeAmount !== null ? 'then ' + money(item.amount, item.currency) : '');
      label.appendChild(detail);
      var price = document.createElement('span');
      price.textContent = money(unit * item.quantity, item.currency);
      li.appendChild(label);
      li.appendChild(price);
      list.appendChild(li);
    });
    $('total').textContent = money(total, currency);
    $('total').setAttribute('data-amount', String(total));
    if (checkout.customerEmail) $('buyer').textContent = 'Paying as ' + (checkout.customerName ? checkout.customerName + ' · ' : '') + checkout.customerEmail;
    if (view.savedInstruments.length > 0) {
      $('saved').hidden = false;
      $('saved').textContent = 'Saved cards: ' + view.savedInstruments.map(function (card) { return card.brand + ' •••• ' + card.last4; }).join(', ');
    }
    if (['completed', 'expired', 'abandoned'].indexOf(checkout.status) >= 0) {
      show('bad', 'This checkout is ' + checkout.status + '.');
      submit.disabled = true;
      submit.dataset.closed = 'true';
    }
  }

  if (!key || !/^pk_live_(mer|org)_[0-9A-Za-z]+$/.test(key) || !/^cks_[0-9A-Za-z]+$/.test(checkoutId)) {
    show('bad', 'This checkout link is incomplete.');
    return;
  }

  var card = Switchyard({ publicKey: key, checkoutSessionId: checkoutId }).mountCard('#card', {
    onChange: function (state) {
      complete = state.complete;
      if (!submit.dataset.closed) submit.disabled = !complete;
    },
  });
  card.on('ready', function (session) {
    $('merchant').textContent = session.merchant.name;
    card.checkout().then(renderCheckout, function (error) { show('bad', 'The checkout could not be loaded: ' + error.message); });
  });
  card.on('error', function (error) { show('bad', error.message); });

  submit.addEventListener('click', function () {
    submit.disabled = true;
    $('result').hidden = true;
    card.tokenize({ purpose: 'instrument_enrollment' })
      .then(function (token) {
        $('result').setAttribute('data-token-id', token.tokenId);
        return card.enroll({ tokenId: token.tokenId });
      })
      .then(function (result) {
        if (result.verified) {
          $('result').setAttribute('data-instrument-id', result.paymentInstrumentId);
          show('ok', 'Card saved: ' + result.brand + ' •••• ' + result.last4);
          submit.dataset.closed = 'true';
          submit.disabled = true;
        } else {
          show('bad', 'The card was declined (' + result.reason + '). Try another card.');
          submit.disabled = false;
        }
      })
      .catch(function (error) {
        show('bad', error.message);
        submit.disabled = !complete;
      });
  });
})();
