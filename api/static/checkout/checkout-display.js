/* The hosted checkout's display helpers (no state, no network): amounts, dates, billing periods and line items in
 * the buyer's locale, the status box, which of the page's views is shown, and the merchant's back and success URLs.
 * checkout.js and checkout-setup.js use them through window.SwitchyardCheckout. */
(function () {
  'use strict';

  var $ = function (id) { return document.getElementById(id); };

  function show(kind, text, failureCode) {
    var box = $('result');
    box.hidden = false;
    box.className = 'result ' + kind;
    box.textContent = text;
    if (failureCode) box.setAttribute('data-failure-code', failureCode);
    else box.removeAttribute('data-failure-code');
  }

  function hideResult() { $('result').hidden = true; }

  function money(amount, currency) {
    var format = new Intl.NumberFormat(undefined, { style: 'currency', currency: currency });
    var digits = format.resolvedOptions().maximumFractionDigits;
    return format.format(amount / Math.pow(10, digits));
  }

  function day(iso) {
    return new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric' }).format(new Date(iso));
  }

  function dateTime(iso) {
    return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  }

  var CYCLES = { daily: 'day', biweekly: '2 weeks', monthly: 'month', quarterly: '3 months', half_yearly: '6 months', yearly: 'year' };

  function per(recurring) {
    if (recurring.billingCycle === 'custom') return 'every ' + recurring.customBillingDays + ' days';
    return 'per ' + (CYCLES[recurring.billingCycle] || recurring.billingCycle);
  }

  function lineDetail(line) {
    var parts = [];
    if (line.quantity > 1) parts.push(line.quantity + ' × ' + money(line.unitAmount, line.currency));
    if (line.trialDays > 0) parts.push(line.trialDays + '-day free trial');
    if (line.firstCharge === 'trial_with_joining_fee' || line.firstCharge === 'setup_price') parts.push('first charge');
    if (line.recurring) parts.push('then ' + money(line.recurring.amount, line.currency) + ' ' + per(line.recurring) + ' from ' + day(line.recurring.firstBillingAt));
    if (line.installments > 1) parts.push('in ' + line.installments + ' installments');
    return parts.join(' · ');
  }

  /* "R$0.00 today, then R$29.00 per month from 23 Dec 2026": the same first-charge rules the charge applies. */
  function laterText(summary) {
    var later = summary.lines.filter(function (line) { return line.recurring !== null; }).map(function (line) {
      return money(line.recurring.amount, line.currency) + ' ' + per(line.recurring) + ' from ' + day(line.recurring.firstBillingAt);
    });
    return later.length ? money(summary.dueToday, summary.currency) + ' today, then ' + later.join(' and ') : '';
  }

  function renderLines(list, lines) {
    list.textContent = '';
    lines.forEach(function (line) {
      var li = document.createElement('li');
      var label = document.createElement('span');
      label.className = 'label';
      label.textContent = line.productName + ' — ' + line.offerName + (line.quantity > 1 ? ' × ' + line.quantity : '');
      var detail = document.createElement('span');
      detail.className = 'detail';
      detail.textContent = lineDetail(line);
      label.appendChild(detail);
      var price = document.createElement('span');
      price.className = 'price';
      price.textContent = money(line.dueToday, line.currency);
      li.appendChild(label);
      li.appendChild(price);
      list.appendChild(li);
    });
  }

  function only(viewId) {
    ['pay-view', 'pending-view', 'auth-view', 'success-view', 'closed-view'].forEach(function (id) { $(id).hidden = id !== viewId; });
  }

  /* The merchant's cancel_url behind the "back" link, while the checkout can still be paid (or its card saved). */
  function backLink(checkout) {
    var open = checkout.status === 'initiated' || checkout.status === 'customer_identified';
    var url = checkout.cancelUrl;
    $('back').hidden = !(open && url && /^https?:\/\//.test(url));
    if (!$('back').hidden) $('back').href = url;
  }

  /* Paid, or the card saved: the merchant's success_url (the API replaced its {CHECKOUT_SESSION_ID}) takes over. */
  function finished(checkout) {
    $('back').hidden = true;
    if (checkout.successUrl && /^https?:\/\//.test(checkout.successUrl)) location.assign(checkout.successUrl);
  }

  function brandName(brand) {
    var names = { amex: 'American Express', diners: 'Diners Club', jcb: 'JCB', elo: 'Elo', visa: 'Visa', mastercard: 'Mastercard', discover: 'Discover', hipercard: 'Hipercard' };
    return names[brand] || brand;
  }

  window.SwitchyardCheckout = {
    $: $,
    show: show,
    hideResult: hideResult,
    money: money,
    day: day,
    dateTime: dateTime,
    per: per,
    laterText: laterText,
    renderLines: renderLines,
    only: only,
    brandName: brandName,
    backLink: backLink,
    finished: finished,
  };
})();
