import ChatCore
import ChatMedia
import ChatSync
import ChatViewModels
import Foundation

/// Media effects: sending, recording, playing, showing and saving.
extension EffectRunner {
    // MARK: - Recording

    func startRecording() async {
        guard openChat() != nil else { return }
        do {
            let file = try chatEffects.newUploadFile(ext: "wav")
            do {
                recorder = try Programs.record(into: file)
            } catch Programs.Failure.notFound {
                try? FileManager.default.removeItem(at: file)
                await dispatch(.outcome(.noRecorder))
                return
            }
            await dispatch(.recordingStarted(file))
        } catch {
            await dispatch(.outcome(.error(Failure(error))))
        }
    }

    func finishRecording(_ file: URL, send: Bool) async {
        if let recorder { await Programs.stop(recorder) }
        recorder = nil
        guard send else { try? FileManager.default.removeItem(at: file); return }
        do {
            var voice: OutgoingMedia.Voice?
            do { voice = try OutgoingMedia.voice(at: file.path) } catch MediaProbe.Failure.unsupported(_) { voice = nil }
            guard let voice, voice.durationSec >= 1 else {
                try? FileManager.default.removeItem(at: file)
                await dispatch(.outcome(.recordingTooShort))
                return
            }
            guard let open = openChat() else { return }
            await chatEffects.send(.voice, paths: [voice.path], in: open.conversation, emit: emit(open.ref))
        } catch {
            await dispatch(.outcome(.error(Failure(error))))
        }
    }

    // MARK: - Fetching into the cache

    /// The cached file of one picture, voice or file; nil with the reason
    /// on the status line.
    func cachedFile(key: String, url: String, expireAt: Int) async -> URL? {
        do { return try await chatEffects.localFile(key: key, url: url, expireAt: expireAt) } catch {
            await dispatch(.outcome(.error(Failure(error))))
            return nil
        }
    }

    func cachedFile(_ m: ChatMessage) async -> URL? {
        guard let key = m.objectKey, !m.isFlash else { return nil }
        return await cachedFile(key: key, url: m.imageUrl ?? "", expireAt: m.urlExpireAt ?? 0)
    }

    // MARK: - Showing

    /// Fetches the flash image into memory (never to disk) and shows it.
    func showFlash(_ m: ChatMessage, width: Int, height: Int) async {
        guard let chat = openChat() else { return }
        do {
            let bytes = try await chatEffects.flashBytes(m)
            let image = try await pictureDecoder.decode(bytes, max(8, width), max(8, (height - 3) * 2))
            await dispatch(.flashShown(m, image))
            // Destroyed the moment it is shown (seed §flash): quitting, a
            // crash or a lost connection during the 10 seconds cannot keep
            // it viewable. The bytes on screen live only in the app's state.
            if chat.mayView(flash: m.id) {
                await chatEffects.flashViewed(messageId: m.id, in: chat.conversation, emit: emit(chat.ref))
            }
        } catch {
            await dispatch(.outcome(describePicture(error)))
        }
    }

    /// Picture `index` of an image or multi-image message, full screen,
    /// from the cache (fetched first when it is not there).
    func showPicture(_ m: ChatMessage, index: Int, width: Int, height: Int) async {
        let all = MessagePictures.of(m)
        guard index >= 0, index < all.count,
              let file = await cachedFile(key: all[index].key, url: all[index].url, expireAt: m.urlExpireAt ?? 0) else { return }
        do {
            let data = try Data(contentsOf: file)
            let image = try await pictureDecoder.decode(data, max(8, width), max(8, (height - 3) * 2))
            await dispatch(.pictureShown(m, index: index, image))
        } catch {
            await dispatch(.outcome(describePicture(error)))
        }
    }

    /// A picture that could not be shown.
    func describePicture(_ error: any Error) -> Outcome {
        guard let f = error as? ImageCodec.Failure else { return .error(Failure(error)) }
        return .pictureFailed(f)
    }

    /// Decodes a cached picture into a thumbnail beside the keys.
    func decodeThumbnail(_ key: String) {
        guard let url = chatEffects.cachedURL(key) else {
            post(.thumbnailDecoded(key: key, .undecodable))
            return
        }
        let decoder = pictureDecoder
        Task { @MainActor [weak self] in
            let path = url.path
            let data = await Task.detached { FileManager.default.contents(atPath: path) }.value
            let outcome: AppState.Thumbnail
            do {
                if let data {
                    outcome = .ready(try await decoder.decode(data, Bubbles.thumbnailSide, Bubbles.thumbnailSide))
                } else {
                    outcome = .undecodable
                }
            } catch let e as ImageCodec.Failure where e.transient {
                outcome = .retryLater
            } catch {
                outcome = .undecodable
            }
            await self?.dispatch(.thumbnailDecoded(key: key, outcome))
        }
    }

    // MARK: - Playing, opening, saving

    /// Enter on a voice message: the first player found.
    func play(_ m: ChatMessage) async {
        guard let file = await cachedFile(m) else { return }
        player?.send(SIGTERM)
        do {
            player = try Programs.play(file) { [weak self] in
                // A player stopped for the next one ends while that one plays.
                Task { @MainActor in
                    guard let self, self.player?.isRunning != true else { return }
                    self.post(.playing(messageId: nil))
                }
            }
            await dispatch(.playing(messageId: m.id))
        } catch Programs.Failure.notFound {
            await dispatch(.outcome(.noPlayer))
        } catch {
            await dispatch(.outcome(.error(Failure(error))))
        }
    }

    /// Enter on the voice message playing: it stops.
    func stopPlaying() async {
        player?.send(SIGTERM)
        player = nil
        await dispatch(.playing(messageId: nil))
    }

    /// `o`: a file is saved first; a multi-image message opens its first picture.
    func openExternally(_ m: ChatMessage) async {
        if MessageKinds.attachment(in: m) != nil {
            if let saved = await saveFile(m) { await view(saved) }
            return
        }
        if m.type == .multiImage { return await openPicture(m, index: 0) }
        if let file = await cachedFile(m) { await view(file) }
    }

    /// Only the addresses `Links` finds (http, https, mailto) reach here,
    /// as one argument, never through a shell (an address starts with its
    /// scheme, so it is never taken for an option).
    func openLink(_ url: String) async {
        do { try Programs.openLink(url) } catch Programs.Failure.notFound(let name) {
            await dispatch(.outcome(.noLinkOpener(name: name ?? "xdg-open")))
        } catch {
            await dispatch(.outcome(.error(Failure(error))))
        }
    }

    func openPicture(_ m: ChatMessage, index: Int) async {
        let all = MessagePictures.of(m)
        guard index < all.count,
              let file = await cachedFile(key: all[index].key, url: all[index].url, expireAt: m.urlExpireAt ?? 0) else { return }
        await view(file)
    }

    func view(_ file: URL) async {
        do { try Programs.view(file) } catch Programs.Failure.notFound(let name) {
            await dispatch(.outcome(.noViewer(name: name)))
        } catch {
            await dispatch(.outcome(.error(Failure(error))))
        }
    }

    /// Saves a received file into the downloads folder, never over another.
    func saveFile(_ m: ChatMessage) async -> URL? {
        guard let file = MessageKinds.attachment(in: m),
              let cached = await cachedFile(key: file.object.key, url: file.object.url, expireAt: file.object.expireAt) else { return nil }
        do {
            let saved = try Downloads.save(try Data(contentsOf: cached), name: file.name, in: downloadsDirectory)
            await dispatch(.outcome(.fileSaved(path: saved.path)))
            return saved
        } catch {
            await dispatch(.outcome(.fileSaveFailed(Failure(error))))
            return nil
        }
    }
}
