"""Class rooms: a teacher leads, students follow and answer. ``rooms`` holds the rooms (codes, the teacher's key, the
students' answers and the streams that push the teacher's view); ``routes`` puts them on HTTP under /class/ as ASGI
middleware; ``static/class.js`` is the browser's side. It may import explorer.serving only (today it needs nothing
from it), never the page or the API.
"""
