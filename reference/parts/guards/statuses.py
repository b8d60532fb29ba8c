"""HTTP's error statuses by their reason phrases, as the RFCs write them (not as the running Python does)."""
from __future__ import annotations

# The 4xx and 5xx reason phrases of RFC 9110's registry (section 15) and those it replaced (RFC 7231's "Payload Too
# Large", RFC 2616's "Request Entity Too Large", "Request-URI Too Long" and "Requested Range Not Satisfiable", RFC
# 4918's "Unprocessable Entity"), written here and not read from `http.HTTPStatus`, whose phrases change with the
# Python release: the same log is judged alike on every Python the kit supports.
ERROR_PHRASES = {
    400: ("Bad Request",), 401: ("Unauthorized",), 402: ("Payment Required",), 403: ("Forbidden",),
    404: ("Not Found",), 405: ("Method Not Allowed",), 406: ("Not Acceptable",),
    407: ("Proxy Authentication Required",), 408: ("Request Timeout",), 409: ("Conflict",), 410: ("Gone",),
    411: ("Length Required",), 412: ("Precondition Failed",),
    413: ("Content Too Large", "Payload Too Large", "Request Entity Too Large"),
    414: ("URI Too Long", "Request-URI Too Long"), 415: ("Unsupported Media Type",),
    416: ("Range Not Satisfiable", "Requested Range Not Satisfiable"), 417: ("Expectation Failed",),
    418: ("I'm a Teapot",), 421: ("Misdirected Request",), 422: ("Unprocessable Content", "Unprocessable Entity"),
    423: ("Locked",), 424: ("Failed Dependency",), 425: ("Too Early",), 426: ("Upgrade Required",),
    428: ("Precondition Required",), 429: ("Too Many Requests",), 431: ("Request Header Fields Too Large",),
    451: ("Unavailable For Legal Reasons",), 500: ("Internal Server Error",), 501: ("Not Implemented",),
    502: ("Bad Gateway",), 503: ("Service Unavailable",), 504: ("Gateway Timeout",),
    505: ("HTTP Version Not Supported",), 506: ("Variant Also Negotiates",), 507: ("Insufficient Storage",),
    508: ("Loop Detected",), 510: ("Not Extended",), 511: ("Network Authentication Required",)}
