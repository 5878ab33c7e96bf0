#!/usr/bin/env python3
"""A loopback OpenAI-compatible chat server scripted by the prompt it gets,
for the knowledge service's end-to-end tests. It writes its port to argv[1]
and each prompt to argv[2] (the last one), then serves until killed.

  dialog prompts (内容审核专家): a conversation naming 赌球 gets label 1 as
    fenced, multi-line JSON; GARBAGE gets HTML; HTTP500 gets a 500; SLOW
    answers after 3 s; anything else gets {"label": 0, ...} on one line.
  answer prompts (参考资料): a question with KEEP is answered with the first
    reference's reply (kept: close to the standard answer); anything else
    gets an unrelated answer (held back).
  relation prompts (`engram facts --suggest`): the text of the file
    argv[2] + ".relations", as the test wrote it.
"""
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, content_type, body):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        prompt = body["messages"][-1]["content"]
        with open(sys.argv[2], "w", encoding="utf-8") as f:
            f.write(prompt)
        if "HTTP500" in prompt:
            return self.reply(500, "text/html", "<html>internal error</html>")
        if "SLOW" in prompt:
            time.sleep(3)
        system = body["messages"][0]["content"]
        if "list the relations it states" in system:
            with open(sys.argv[2] + ".relations", encoding="utf-8") as f:
                content = f.read()
        elif "内容审核专家" in prompt:
            if "GARBAGE" in prompt:
                content = "<html><body>I cannot help with that.</body></html>"
            elif "赌球" in prompt:
                content = '```json\n{\n  "label": 1,\n  "reason": "以小说为名索取赌球渠道"\n}\n```'
            else:
                content = '{"label": 0, "reason": "普通对话"}'
        else:
            question = prompt.rsplit("用户的问题：", 1)[-1]
            first = re.search(r"回复：(.*)", prompt)
            if "KEEP" in question and first:
                content = first.group(1)
            else:
                content = "You can get them from a dealer downtown."
        answer = {"choices": [{"message": {"role": "assistant", "content": content}}]}
        self.reply(200, "application/json", json.dumps(answer, ensure_ascii=False))


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1], "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
