/* Setup mode of the hosted checkout (a checkout session created with mode "setup"): a "Save a card" page for the
 * customer the merchant named. Nothing is sold or charged: the card is tokenized for enrolment and saved with
 * card.enroll (POST /sessions/:id/payment-instruments in this checkout's browser session), which verifies it with a
 * zero-amount check and completes the checkout naming the saved instrument. A card the issuer declines is not saved:
 * the page says why and the buyer may type another. checkout.js hands the page over to it for such a session. */
(function () {
  'use strict';

  var display = window.SwitchyardCheckout;
  var $ = display.$;
  /* The buyer reads these; provider codes stay in the merchant's Dashboard and API. */
  var NOT_SAVED = {
    soft_decline: 'Your bank declined this card, so it was not saved. Check the card details, or try another card.',
    hard_decline: 'This card cannot be saved. Please use another card.',
  };
  var NOT_CHECKED = 'The card could not be checked right now, so it was not saved. Please try again in a moment.';

  /* Who asks for the card, and the card form: no amount, no items, no other way to pay. */
  function layout(checkout) {
    document.title = 'Save a card';
    ['total-label', 'total', 'items', 'later', 'methods', 'saved'].forEach(function (id) { $(id).hidden = true; });
    $('card-title').textContent = 'Save a card';
    $('card-note').textContent = 'Your card is checked with a zero-amount verification and kept for this shop\'s later payments. Nothing is charged now.';
    if (checkout.customerEmail) $('buyer').textContent = 'Saving for ' + (checkout.customerName ? checkout.customerName + ' · ' : '') + checkout.customerEmail;
  }

  function saved(checkout, instrumentId, description) {
    $('receipt-title').textContent = 'Card saved';
    $('receipt-amount').textContent = (description || 'Your card') + ' is saved. Nothing was charged.';
    $('receipt-items').hidden = true;
    $('receipt-order-line').hidden = true;
    $('success-view').setAttribute('data-payment-instrument-id', instrumentId);
    display.only('success-view');
    display.finished(checkout);
  }

  /* page: what checkout.js lends this mode — closed(title, text), done() (no more submits), cardCleared(). */
  display.setupMode = function (card, page) {
    var checkout = null;
    return {
      render: function (view) {
        checkout = view.checkout;
        layout(checkout);
        if (checkout.status === 'completed') { page.done(); saved(checkout, checkout.paymentInstrumentId, null); }
        else if (checkout.status === 'expired') page.closed('This link has expired', 'Ask the seller for a new one.');
        else if (checkout.status === 'abandoned') page.closed('This link is no longer available', 'Ask the seller for a new one.');
        else if (!view.paymentMethods.cards) page.closed('Saving a card is not available yet', 'This shop cannot check cards right now. Please contact the seller.');
      },
      save: function () {
        return card.tokenize({ purpose: 'instrument_enrollment' })
          .then(function (token) { return card.enroll({ tokenId: token.tokenId }); })
          .then(function (result) {
            if (result.verified) {
              page.done();
              return saved(checkout, result.paymentInstrumentId, result.brand.toUpperCase() + ' •••• ' + result.last4);
            }
            card.clear();
            page.cardCleared();
            display.show('bad', NOT_SAVED[result.reason] || NOT_CHECKED, result.reason);
          });
      },
    };
  };
})();
