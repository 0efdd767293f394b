package records

import (
	"github.com/kimigo/kimigo/llm/plainjson"
)

// rewriteMedia applies fn to the url of every media container in the
// candidate parts of rec (spec 02 §6.6) and returns the record rebuilt
// with the new URLs, or rec itself when nothing changed.
//
// Candidates are found generically, without payload structs: the parts
// array of turn.prompt / turn.steer (input), context.append_message
// (message.content) and a tool.result loop event (event.result.output);
// in each part, any field whose value is an object with a string "url".
func rewriteMedia(rec Record, fn func(url string) (string, bool, error)) (Record, bool, error) {
	line := rec.encode()
	top, ok := parseObject(line)
	if !ok {
		return rec, false, nil
	}
	path := partsPath(top, rec.Type)
	if path == nil {
		return rec, false, nil
	}
	out, changed, err := editPath(top, path, func(arr []byte) ([]byte, bool, error) {
		return editParts(arr, fn)
	})
	if err != nil || !changed {
		return rec, false, err
	}
	nr, err := parseRecord(out)
	if err != nil { // an edit of valid JSON stays valid; keep the original
		return rec, false, nil
	}
	nr.lineNo = rec.lineNo
	return nr, true, nil
}

// mediaCarrier reports whether records of type typ may hold media (those
// partsPath finds parts in).
func mediaCarrier(typ Type) bool {
	switch typ {
	case typeTurnPrompt, typeTurnSteer, typeAppendMessage, typeAppendLoopEvent:
		return true
	}
	return false
}

// partsPath names the key path from the record object to its parts array.
func partsPath(top *object, typ Type) []string {
	switch typ {
	case typeTurnPrompt, typeTurnSteer:
		return []string{"input"}
	case typeAppendMessage:
		return []string{"message", "content"}
	case typeAppendLoopEvent:
		ev := top.getObject("event")
		if ev == nil {
			return nil
		}
		if t, _ := ev.getString("type"); t != loopEventToolResult {
			return nil
		}
		return []string{"event", "result", "output"}
	}
	return nil
}

// editPath applies fn to the value at path inside o and returns o's
// re-encoded bytes when fn changed something. o is modified only then.
func editPath(o *object, path []string, fn func([]byte) ([]byte, bool, error)) ([]byte, bool, error) {
	v, ok := o.get(path[0])
	if !ok {
		return nil, false, nil
	}
	var nv []byte
	var changed bool
	var err error
	if len(path) == 1 {
		nv, changed, err = fn(v)
	} else if sub, ok := parseObject(v); ok {
		nv, changed, err = editPath(sub, path[1:], fn)
	}
	if err != nil || !changed {
		return nil, false, err
	}
	o.set(path[0], nv)
	return o.bytes(), true, nil
}

// editParts applies fn to the media URLs of the parts in a JSON array. A
// value that is not an array (a string tool output) is left alone.
func editParts(arr []byte, fn func(url string) (string, bool, error)) ([]byte, bool, error) {
	elems, ok := parseArray(arr)
	if !ok {
		return nil, false, nil
	}
	changed := false
	for i, e := range elems {
		part, ok := parseObject(e)
		if !ok {
			continue
		}
		partChanged := false
		for j, m := range part.members {
			if len(m.val) == 0 || m.val[0] != '{' {
				continue
			}
			container, ok := parseObject(m.val)
			if !ok {
				continue
			}
			url, ok := container.getString("url")
			if !ok {
				continue
			}
			nu, ch, err := fn(url)
			if err != nil {
				return nil, false, err
			}
			if !ch || nu == url {
				continue
			}
			container.set("url", plainjson.Quote(nu))
			part.members[j].val = container.bytes()
			partChanged = true
		}
		if partChanged {
			elems[i] = part.bytes()
			changed = true
		}
	}
	if !changed {
		return nil, false, nil
	}
	return encodeArray(elems), true, nil
}
