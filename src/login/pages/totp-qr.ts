// The authenticator app's enrolment QR code: the otpauth:// URI drawn as an
// inline SVG on the server (the qrcode package), for the login's enrolment
// page to embed. No network service sees the secret; the SVG is paths only,
// with no external reference (no href, no image, no script).
import QRCode from 'qrcode';

/** The URI as an SVG document (a string to place inline in a page). */
export async function totpQrSvg(uri: string): Promise<string> {
  return QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}
