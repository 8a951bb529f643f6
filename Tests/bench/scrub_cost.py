#!/usr/bin/env python3
"""Issue 46: an edit's cost against the size of the sync log. A release
tongban-server on SQLite, one message, then 4,000 and 4,000,000 unattached
log rows (conversation summaries, as pin toggles leave) put in with sqlite3
while the server is stopped; the median of 50 edits each (after 10 to warm
up). Run after `make release`: python3 Tests/bench/scrub_cost.py"""
import json, os, re, shutil, subprocess, sys, time, urllib.request, statistics
BIN=os.environ.get("BIN", ".build/release")
def start(d):
    log=open(d+"/log","w")
    p=subprocess.Popen([BIN+"/tongban-server","--no-limits","--port","0","--data-dir",d,"--log-level","info"],stderr=log,stdout=subprocess.DEVNULL)
    for _ in range(200):
        m=re.search(r"127\.0\.0\.1:(\d+)",open(d+"/log").read())
        if m: return p,"http://127.0.0.1:"+m.group(1)
        time.sleep(0.05)
    raise SystemExit("no start")
def call(base,path,body,token=None):
    req=urllib.request.Request(base+path,data=json.dumps(body).encode(),method="POST")
    req.add_header("Content-Type","application/json")
    if token: req.add_header("Authorization","Bearer "+token)
    with urllib.request.urlopen(req) as r: return json.loads(r.read() or b"null")
def run(rows):
    d=f"/tmp/tongban-scrub-{os.getpid()}-{rows}"; shutil.rmtree(d,ignore_errors=True); os.makedirs(d)
    p,base=start(d)
    a=call(base,"/auth/register",{"account":"scrub_a","password":"password-a"})
    b=call(base,"/auth/register",{"account":"scrub_b","password":"password-b"})
    conv="si_"+"_".join(sorted([a["imUid"],b["imUid"]]))
    call(base,"/chat/message/send",{"recvID":conv,"content":"hello","contentType":101,"clientMsgId":"m1"},a["token"])
    p.terminate(); p.wait()
    subprocess.run(["sqlite3",d+"/server.sqlite",f"""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<{rows})
      INSERT INTO event(uid, messageId, body, createdAt) SELECT 1, NULL, '{{"kind":"conversation","conversation":{{"conversationId":"x","isPinned":true}}}}', 0 FROM n;"""],check=True)
    p,base=start(d)
    times=[]
    for i in range(60):
        t=time.perf_counter()
        call(base,"/chat/message/edit",{"conversation_id":conv,"client_msg_id":"m1","content":f"edit {i}"},a["token"])
        times.append((time.perf_counter()-t)*1000)
    p.terminate(); p.wait()
    shutil.rmtree(d, ignore_errors=True)
    return statistics.median(times[10:])
small=run(4000); big=run(4000000)
print(f"edit median: {small:.2f} ms with 4,000 unattached log rows, {big:.2f} ms with 4,000,000 (ratio {big/small:.2f})")
