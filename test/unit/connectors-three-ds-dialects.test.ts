/**
 * 3-D Secure in each provider's own shapes, read by its transformer: the "challenge needed" answer becomes outcome
 * pending with the provider's challenge page, and the final answer says how the card was authenticated. The JSON
 * below is copied from the providers' documented examples (source on each), trimmed to the fields that matter.
 */
import { expect } from 'chai';
import { fromPayment as fromCheckout } from '../../domain/connectors/checkout/transformers';
import { fromPayment as fromMercadoPago } from '../../domain/connectors/provider_c/transformers';
import {
  fromDetails as fromAdyenDetails,
  fromPayment as fromAdyen,
} from '../../domain/connectors/provider_b/transformers';
import { answer } from '../helpers/rows';

// Checkout.com, POST /payments with `3ds: {enabled: true}` answered 202 Pending. Source: checkout/checkout-sdk-node,
// test/payments/requestPayment.js ("should perform 3DS payment request with a Card Source"), after
// https://api-reference.checkout.com/#operation/requestAPaymentOrPayout (202 response).
const CHECKOUT_PENDING = {
  id: 'pay_k72n4u433mierlthuim5oc5syu',
  status: 'Pending',
  customer: { id: 'cus_6artgoevd77u7ojah2wled32sa' },
  '3ds': { downgraded: false, enrolled: 'Y' },
  _links: {
    self: { href: 'https://123456789.api.sandbox.checkout.com/payments/pay_k72n4u433mierlthuim5oc5syu' },
    redirect: { href: 'https://3ds2-sandbox.ckotech.co/interceptor/3ds_a25l6ocl6luebnvyed4s3xvxcu' },
  },
};

// Checkout.com, GET /payments/{id} of an authenticated payment. Source: checkout/checkout-sdk-node,
// test/payments/getPayment.js, after https://api-reference.checkout.com/#operation/getPaymentDetails.
const CHECKOUT_AUTHENTICATED = {
  id: 'pay_je5hbbb4u3oe7k4u3lbwlu3zkq',
  amount: 6540,
  currency: 'GBP',
  payment_type: 'Regular',
  status: 'Authorized',
  approved: true,
  '3ds': {
    downgraded: false,
    enrolled: 'Y',
    signature_valid: 'Y',
    authentication_response: 'Y',
    cryptogram: 'hv8mUFzPzRZoCAAAAAEQBDMAAAA=',
    xid: 'MDAwMDAwMDAwMDAwMDAwMzIyNzY=',
    version: '2.1.0',
    exemption: 'low_value',
    challenged: true,
  },
  eci: '05',
  scheme_id: '650050831378549',
  response_code: '10000',
};

// Mercado Pago, POST /v1/payments with `three_d_secure_mode: "optional"` for a card the issuer challenges. Source:
// https://www.mercadopago.com.br/developers/en/docs/checkout-api/how-tos/integrate-3ds ("Response overview"); the
// three_ds_info type is mercadopago/sdk-nodejs src/clients/payment/commonTypes.ts (ThreeDSInfo).
const MERCADO_PAGO_CHALLENGE = {
  id: 52044997115,
  status: 'pending',
  status_detail: 'pending_challenge',
  three_ds_info: {
    external_resource_url: 'https://acs-public.tp.mastercard.com/api/v1/browser_challenges',
    creq: 'eyJ0aHJlZURTU2VydmVyVHJhbnNJRCI6ImJmYTVhZjI0LTliMzAtNGY1Yi05MzQwLWJkZTc1ZjExMGM1MCJ9',
  },
  owner: null,
};

describe('Checkout.com 3-D Secure (checkout transformers)', () => {
  it('a 202 Pending payment with _links.redirect is pending, the redirect its challenge page', () => {
    expect(fromCheckout(answer(202, CHECKOUT_PENDING))).to.include({
      outcome: 'pending',
      providerReference: 'pay_k72n4u433mierlthuim5oc5syu',
      rawCode: 'Pending',
      challengeUrl: 'https://3ds2-sandbox.ckotech.co/interceptor/3ds_a25l6ocl6luebnvyed4s3xvxcu',
    });
  });

  it('a Pending payment without a redirect (pix-like asynchronous) is pending with no challenge', () => {
    const { redirect: _redirect, ...links } = CHECKOUT_PENDING._links;
    const read = fromCheckout(answer(202, { ...CHECKOUT_PENDING, _links: links }));
    expect(read.outcome).to.equal('pending');
    expect(read.challengeUrl ?? null).to.equal(null);
  });

  it('a challenged payment authenticated (authentication_response Y) is approved, authenticated with its version and ECI', () => {
    const read = fromCheckout(answer(200, CHECKOUT_AUTHENTICATED));
    expect(read.outcome).to.equal('approved');
    expect(read.threeDs).to.deep.equal({ status: 'authenticated', version: '2.1.0', eci: '05', liability_shift: true });
  });

  it('authentication_response Y without a challenge is frictionless; A (attempted) is frictionless with liability shift', () => {
    const three = CHECKOUT_AUTHENTICATED['3ds'];
    const frictionless = fromCheckout(
      answer(200, { ...CHECKOUT_AUTHENTICATED, '3ds': { ...three, challenged: false } }),
    );
    expect(frictionless.threeDs).to.include({ status: 'frictionless', liability_shift: true });
    const attempted = fromCheckout(
      answer(200, { ...CHECKOUT_AUTHENTICATED, '3ds': { ...three, authentication_response: 'A' } }),
    );
    expect(attempted.threeDs).to.include({ status: 'frictionless', liability_shift: true });
  });

  it('a failed authentication (N) declines with the response code, authentication failed without liability shift', () => {
    const read = fromCheckout(
      answer(200, {
        ...CHECKOUT_AUTHENTICATED,
        status: 'Declined',
        approved: false,
        response_code: '20151',
        '3ds': { ...CHECKOUT_AUTHENTICATED['3ds'], authentication_response: 'N' },
      }),
    );
    expect(read).to.include({ outcome: 'hard_decline', rawCode: '20151' });
    expect(read.threeDs).to.include({ status: 'failed', liability_shift: false });
  });

  it('a payment without a 3ds object says nothing of authentication', () => {
    const { '3ds': _three, ...plain } = CHECKOUT_AUTHENTICATED;
    expect(fromCheckout(answer(201, plain)).threeDs).to.equal(null);
  });
});

describe('Mercado Pago 3-D Secure (provider_c transformers)', () => {
  it('pending / pending_challenge with three_ds_info is pending, external_resource_url its challenge page', () => {
    expect(fromMercadoPago(answer(201, MERCADO_PAGO_CHALLENGE))).to.include({
      outcome: 'pending',
      providerReference: '52044997115',
      rawCode: 'pending_challenge',
      challengeUrl: 'https://acs-public.tp.mastercard.com/api/v1/browser_challenges',
    });
  });

  it('GET /v1/payments/{id} approved after the challenge: approved, authenticated (no version or ECI stated)', () => {
    const read = fromMercadoPago(
      answer(200, { ...MERCADO_PAGO_CHALLENGE, status: 'approved', status_detail: 'accredited' }),
    );
    expect(read.outcome).to.equal('approved');
    expect(read.threeDs).to.deep.equal({ status: 'authenticated', version: null, eci: null, liability_shift: true });
  });

  it('rejected cc_rejected_3ds_challenge: a hard decline, authentication failed', () => {
    const read = fromMercadoPago(
      answer(200, { ...MERCADO_PAGO_CHALLENGE, status: 'rejected', status_detail: 'cc_rejected_3ds_challenge' }),
    );
    expect(read).to.include({ outcome: 'hard_decline', rawCode: 'cc_rejected_3ds_challenge' });
    expect(read.threeDs).to.include({ status: 'failed', liability_shift: false });
  });

  it('rejected for another reason after the challenge: the decline, the buyer authenticated', () => {
    const read = fromMercadoPago(
      answer(200, { ...MERCADO_PAGO_CHALLENGE, status: 'rejected', status_detail: 'cc_rejected_other_reason' }),
    );
    expect(read).to.include({ outcome: 'soft_decline' });
    expect(read.threeDs).to.include({ status: 'authenticated' });
  });

  it('a payment without three_ds_info says nothing of authentication', () => {
    const { three_ds_info: _info, ...plain } = MERCADO_PAGO_CHALLENGE;
    expect(
      fromMercadoPago(answer(201, { ...plain, status: 'approved', status_detail: 'accredited' })).threeDs,
    ).to.equal(null);
  });
});

// Adyen, POST /payments for a card the issuer challenges, redirect 3-D Secure 2 (no nativeThreeDS): the action is a
// GET redirect. Source: https://docs.adyen.com/online-payments/3d-secure/redirect-3ds2/api-only ("Make a payment",
// response); the action's fields are the Checkout API's CheckoutRedirectAction (Adyen/adyen-openapi, CheckoutService).
const ADYEN_REDIRECT = {
  resultCode: 'RedirectShopper',
  action: {
    paymentMethodType: 'scheme',
    url: 'https://checkoutshopper-test.adyen.com/checkoutshopper/threeDS/redirect?MD=M2RzI1NzJkNjE5ZTA5&redirectData=X3XtfGC9',
    method: 'GET',
    type: 'redirect',
  },
};

// Adyen, a redirect the browser must POST (3-D Secure 1 to the issuer's ACS, MD/PaReq/TermUrl in `data`). Source:
// the Checkout API's CheckoutRedirectAction (Adyen/adyen-openapi: `data`, "When the redirect URL must be accessed via
// POST, use this data to post to the redirect URL"), values as in Adyen's 3D Secure 1 redirect examples.
const ADYEN_POST_REDIRECT = {
  resultCode: 'RedirectShopper',
  pspReference: '8835511210681234',
  action: {
    paymentMethodType: 'scheme',
    url: 'https://test.adyen.com/hpp/3d/validate.shtml',
    method: 'POST',
    data: { MD: 'aTZmV09...', PaReq: 'eNpVUtt...', TermUrl: 'https://your-company.com/checkout' },
    type: 'redirect',
  },
};

// Adyen, POST /payments/details {details: {redirectResult}} after the challenge: Authorised, with the 3-D Secure
// fields of additionalData (ResponseAdditionalDataCommon: threeDAuthenticated, threeDAuthenticatedResponse,
// threeDOffered, liabilityShift, threeDSVersion; eci). Source: Adyen/adyen-openapi, Checkout API
// PaymentDetailsResponse; https://docs.adyen.com/online-payments/3d-secure/redirect-3ds2/api-only ("Handle the redirect").
const ADYEN_DETAILS_AUTHORISED = {
  pspReference: 'V4HZ4RBFJGXXGN82',
  resultCode: 'Authorised',
  merchantReference: 'tx_0a1b2c3d',
  amount: { currency: 'EUR', value: 1000 },
  additionalData: {
    threeDOffered: 'true',
    threeDAuthenticated: 'true',
    threeDAuthenticatedResponse: 'Y',
    threeDOfferedResponse: 'Y',
    liabilityShift: 'true',
    threeDSVersion: '2.2.0',
    eci: '05',
  },
};

describe('Adyen 3-D Secure (provider_b transformers)', () => {
  it('RedirectShopper with a GET redirect is pending, the action url its challenge page', () => {
    expect(fromAdyen(answer(200, ADYEN_REDIRECT))).to.include({
      outcome: 'pending',
      providerReference: null,
      rawCode: 'RedirectShopper',
      challengeUrl: ADYEN_REDIRECT.action.url,
    });
    expect(fromAdyen(answer(200, { ...ADYEN_REDIRECT, pspReference: 'PSP9' })).providerReference).to.equal('PSP9');
  });

  it('RedirectShopper the browser must POST is no challenge a buyer can follow by link: a soft decline', () => {
    const read = fromAdyen(answer(200, ADYEN_POST_REDIRECT));
    expect(read).to.include({
      outcome: 'soft_decline',
      rawCode: 'RedirectShopper',
      providerReference: '8835511210681234',
    });
    expect(read.challengeUrl ?? null).to.equal(null);
  });

  it('/payments/details Authorised after the challenge (Y): approved, authenticated with its version, ECI and liability shift', () => {
    const read = fromAdyenDetails(answer(200, ADYEN_DETAILS_AUTHORISED));
    expect(read).to.include({ outcome: 'approved', providerReference: 'V4HZ4RBFJGXXGN82' });
    expect(read.threeDs).to.deep.equal({ status: 'authenticated', version: '2.2.0', eci: '05', liability_shift: true });
  });

  it('/payments Authorised at once with Y is frictionless; A (attempted) is frictionless too', () => {
    expect(fromAdyen(answer(200, ADYEN_DETAILS_AUTHORISED)).threeDs).to.include({
      status: 'frictionless',
      liability_shift: true,
    });
    const additionalData = { ...ADYEN_DETAILS_AUTHORISED.additionalData, threeDAuthenticatedResponse: 'A' };
    expect(fromAdyenDetails(answer(200, { ...ADYEN_DETAILS_AUTHORISED, additionalData })).threeDs).to.include({
      status: 'frictionless',
      liability_shift: true,
    });
  });

  it('Refused 11 (3D Not Authenticated) after the challenge: a decline, authentication failed without liability shift', () => {
    const read = fromAdyenDetails(
      answer(200, {
        ...ADYEN_DETAILS_AUTHORISED,
        resultCode: 'Refused',
        refusalReason: '3D Not Authenticated',
        refusalReasonCode: '11',
        additionalData: {
          ...ADYEN_DETAILS_AUTHORISED.additionalData,
          threeDAuthenticated: 'false',
          threeDAuthenticatedResponse: 'N',
          liabilityShift: 'false',
          eci: '07',
        },
      }),
    );
    expect(read).to.include({ outcome: 'soft_decline', rawCode: '11' });
    expect(read.threeDs).to.include({ status: 'failed', liability_shift: false });
  });

  it('Refused by the issuer after a passed challenge: the decline, the buyer authenticated', () => {
    const read = fromAdyenDetails(
      answer(200, {
        ...ADYEN_DETAILS_AUTHORISED,
        resultCode: 'Refused',
        refusalReason: 'Refused',
        refusalReasonCode: '2',
      }),
    );
    expect(read).to.include({ outcome: 'soft_decline', rawCode: '2' });
    expect(read.threeDs).to.include({ status: 'authenticated', liability_shift: true });
  });

  it('a payment whose additionalData names no 3-D Secure (not offered, N/A) says nothing of authentication', () => {
    const additionalData = { threeDOffered: 'false', threeDOfferedResponse: 'N/A', threeDAuthenticatedResponse: 'N/A' };
    expect(fromAdyen(answer(200, { ...ADYEN_DETAILS_AUTHORISED, additionalData })).threeDs).to.equal(null);
  });
});
